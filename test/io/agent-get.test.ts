import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentGet } from '../../src/shared/io/agent-get.js';
import { HttpGetFailure } from '../../src/shared/io/http-get.js';

describe('agentGet', () => {
  let server: http.Server;
  let base: string;
  const sockets = new Set<Socket>();
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      if (req.url === '/redirect') res.writeHead(302, { location: '/elsewhere' }).end();
      else if (req.url === '/big') res.writeHead(200).end('x'.repeat(5000));
      else if (req.url === '/elsewhere') res.writeHead(200).end('followed');
      else if (req.url === '/cut') req.socket.destroy();
      else if (req.url === '/hang') return;
      else if (req.url === '/half') {
        res.writeHead(200, { 'content-length': '100' });
        res.write('x'.repeat(50), () => req.socket.destroy());
      } else if (req.url === '/slow-body') {
        res.writeHead(200, { 'content-length': '100' });
        res.write('x'.repeat(50));
      } else if (req.url === '/echo') res.writeHead(200).end(JSON.stringify(req.headers));
      else res.writeHead(200, { etag: '"e1"', 'x-api-remain': '7' }).end('ok 文字');
    });
    server.on('connection', (s) => sockets.add(s));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  const req = (path: string, maxBytes = 1 << 20, timeoutMs = 5000) => ({
    url: `${base}${path}`,
    headers: { accept: 'application/json', authorization: 'Bearer sk_secret' },
    timeoutMs,
    maxBytes,
  });
  const failure = (path: string, maxBytes?: number, timeoutMs?: number) =>
    agentGet(req(path, maxBytes, timeoutMs)).then(
      () => undefined,
      (e: unknown) => e as HttpGetFailure,
    );

  it('answers status, lower-case headers and the body as UTF-8', async () => {
    const r = await agentGet(req('/'));
    expect(r).toMatchObject({ status: 200, body: 'ok 文字', headers: { etag: '"e1"' } });
    expect(r.headers['x-api-remain']).toBe('7');
  });

  it('sends the headers it is given', async () => {
    const r = await agentGet(req('/echo'));
    expect(JSON.parse(r.body)).toMatchObject({ authorization: 'Bearer sk_secret' });
  });

  it('does not follow a redirect', async () => {
    expect((await agentGet(req('/redirect'))).status).toBe(302);
  });

  it('refuses an answer longer than maxBytes', async () => {
    await expect(agentGet(req('/big', 1000))).rejects.toEqual(
      new HttpGetFailure('answer longer than 1000 bytes'),
    );
  });

  it('keeps one connection for requests one after the other', async () => {
    const before = sockets.size;
    for (let i = 0; i < 5; i++) expect((await agentGet(req('/'))).status).toBe(200);
    expect(sockets.size - before).toBeLessThanOrEqual(1);
  });

  it('says why there was no answer, never with the key', async () => {
    const cut = await failure('/cut');
    expect(cut).toBeInstanceOf(HttpGetFailure);
    expect(cut!.reason).toMatch(/^connection failed \(.+\)$/);
    expect((await failure('/hang', undefined, 200))!.reason).toBe('no answer within 200 ms');
    const half = await failure('/half');
    expect(half!.reason).toMatch(/^connection cut while reading the answer \(.+\)$/);
    const slow = await failure('/slow-body', undefined, 200);
    expect(slow!.reason).toBe('answer not finished within 200 ms');
    const refused = await agentGet({ ...req('/'), url: 'http://127.0.0.1:1/' }).catch(
      (e: unknown) => e as HttpGetFailure,
    );
    expect((refused as HttpGetFailure).reason).toBe('connection failed (ECONNREFUSED)');
    for (const e of [cut, half, slow, refused]) expect(String(e)).not.toContain('sk_secret');
    // The connection is still good for the next request after all of that.
    expect((await agentGet(req('/'))).status).toBe(200);
  });
});
