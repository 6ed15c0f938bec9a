import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { closeWithin } from '../../src/shared/app/http-server-limits.js';
import { loadConfig } from '../../src/shared/config/config.js';
import { buildSiteApp } from '../../src/http/site/app.js';
import { makeApp, silentLogger } from '../api/helpers/api-harness.js';
import { useTestDatabase } from '../helpers/test-db.js';

const t = useTestDatabase();
const closers: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  for (const close of closers.reverse()) await close().catch(() => undefined);
});

/**
 * A client that sends a request's headers and then its body one byte at a time, slower than any
 * real one: resolves with what the server answered (if anything) once the server closes the
 * connection, or with 'still open' if it has not after `giveUpMs`.
 */
function slowBody(port: number, path: string, giveUpMs: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    let answer = '';
    const drip = setInterval(() => socket.write('a'), 400);
    const done = (what: string) => {
      clearInterval(drip);
      clearTimeout(giveUp);
      socket.destroy();
      resolve(what);
    };
    const giveUp = setTimeout(() => done('still open'), giveUpMs);
    socket.on('connect', () =>
      socket.write(
        `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n` +
          'Content-Length: 4000\r\n\r\n',
      ),
    );
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString('latin1')));
    socket.on('error', () => undefined);
    socket.on('close', () => done(answer.split('\r\n', 1)[0] || 'closed without an answer'));
  });
}

const portOf = (server: { address(): unknown }) => (server.address() as AddressInfo).port;

describe('slow request bodies (Slowloris)', () => {
  it('the API cuts a request whose body trickles past HTTP_REQUEST_TIMEOUT_MS', async () => {
    const app = await makeApp(t.current.db, {
      env: { HTTP_REQUEST_TIMEOUT_MS: '1000', HTTP_HEADERS_TIMEOUT_MS: '1000' },
    });
    closers.push(() => app.close());
    await app.listen({ host: '127.0.0.1', port: 0 });
    const answer = await slowBody(portOf(app.server), '/api/v2/auth/login', 20_000);
    expect(answer).toBe('HTTP/1.1 408 Request Timeout');
  });

  it('the site cuts it too', async () => {
    const config = loadConfig({
      LOG_LEVEL: 'silent',
      SITE_SEED_DOCS: 'false',
      HTTP_REQUEST_TIMEOUT_MS: '1000',
      HTTP_HEADERS_TIMEOUT_MS: '1000',
    });
    const app = await buildSiteApp({ db: t.current.db, config, logger: silentLogger() });
    closers.push(() => app.close());
    await app.listen({ host: '127.0.0.1', port: 0 });
    const answer = await slowBody(portOf(app.server), '/wp-json/wp/v2/posts', 20_000);
    expect(answer).toBe('HTTP/1.1 408 Request Timeout');
  });

  it('a graceful shutdown closes the connections still open at its deadline', async () => {
    // The request timeout is far away: only the shutdown's deadline can end this request.
    const app = await makeApp(t.current.db, { env: { HTTP_REQUEST_TIMEOUT_MS: '600000' } });
    closers.push(() => app.close());
    await app.listen({ host: '127.0.0.1', port: 0 });
    const client = slowBody(portOf(app.server), '/api/v2/auth/login', 30_000);
    await new Promise((r) => setTimeout(r, 500));
    await closeWithin(app, 300);
    expect(await client).not.toBe('still open');
  });
});
