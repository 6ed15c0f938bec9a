import { createServer, connect, type AddressInfo, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { TcpProxy } from './tcp-proxy.js';

/** An echo server and a client that sends one line and waits for its echo or an error. */
async function echoServer() {
  const server = createServer((s) => s.pipe(s));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return { server, port: (server.address() as AddressInfo).port };
}

function roundTrip(port: number, timeoutMs = 500): Promise<string> {
  return new Promise((resolve) => {
    const s: Socket = connect(port, '127.0.0.1');
    const timer = setTimeout(() => {
      s.destroy();
      resolve('silence');
    }, timeoutMs);
    s.once('data', (d) => {
      clearTimeout(timer);
      s.destroy();
      resolve(`echo ${d.toString()}`);
    });
    s.once('error', (e: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      resolve(e.code ?? 'error');
    });
    s.write('hi');
  });
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe('the fault proxy', () => {
  it('passes traffic, resets or blackholes it when cut, and passes it again when restored', async () => {
    const echo = await echoServer();
    cleanups.push(() => new Promise((r) => echo.server.close(() => r())));
    const proxy = await TcpProxy.start({ host: '127.0.0.1', port: echo.port });
    cleanups.push(() => proxy.close());

    expect(await roundTrip(proxy.port)).toBe('echo hi');
    proxy.cut('reset');
    expect(await roundTrip(proxy.port)).toBe('ECONNRESET');
    proxy.cut('blackhole');
    expect(await roundTrip(proxy.port, 300)).toBe('silence');
    proxy.restore();
    expect(await roundTrip(proxy.port)).toBe('echo hi');
    expect(proxy.url('postgres://postgres@127.0.0.1:5432/db?x=1')).toBe(
      `postgres://postgres@127.0.0.1:${proxy.port}/db?x=1`,
    );
  });
});
