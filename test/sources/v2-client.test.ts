import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchGet, HttpGetFailure, type HttpGet } from '../../src/shared/io/http-get.js';
import { retryAfterSeconds, V2Client, V2RequestError } from '../../src/domain/sources/v2-client.js';
import { fastClock } from './upstream.js';

const EMPTY_PAGE = {
  ok: true,
  meta: { remain: 100, cost: 1 },
  data: { serviceDay: 20679, cursor: '', limit: 200, nextCursor: '', items: [] },
  error: '',
};

function client(get: HttpGet, clock = fastClock(1_000_000), maxWaitSeconds = 900) {
  return new V2Client({
    baseUrl: 'http://upstream.test/base',
    apiKey: undefined,
    rate: 1,
    clock,
    get,
    timeoutMs: 1000,
    maxBytes: 1 << 20,
    maxWaitSeconds,
    maxRefusals: 5,
    userAgent: 'test',
  });
}

function answers(
  ...list: { status: number; headers?: Record<string, string>; body?: unknown }[]
): HttpGet {
  return async () => {
    const a = list.shift();
    if (!a) throw new Error('no more answers');
    return {
      status: a.status,
      headers: { 'content-type': 'application/json', ...a.headers },
      body: typeof a.body === 'string' ? a.body : JSON.stringify(a.body ?? EMPTY_PAGE),
    };
  };
}

describe('retryAfterSeconds', () => {
  it('reads delta-seconds and HTTP dates', () => {
    expect(retryAfterSeconds('7', 0)).toBe(7);
    expect(retryAfterSeconds('Thu, 01 Jan 1970 00:00:30 GMT', 10_000)).toBe(20);
    expect(retryAfterSeconds('Thu, 01 Jan 1970 00:00:01 GMT', 10_000)).toBe(0);
    expect(retryAfterSeconds('soon', 0)).toBeUndefined();
    expect(retryAfterSeconds(undefined, 0)).toBeUndefined();
  });
});

describe('V2Client', () => {
  it('builds the URL from the base and fixed paths only', () => {
    expect(client(answers()).pageUrl('20260814', 5, '20679:12')).toBe(
      'http://upstream.test/base/api/v2/records/daily?date=20260814&limit=5&cursor=20679%3A12',
    );
  });

  it('waits the longer of Retry-After and meta.retryAfter, and meta.retryAfter on a success', async () => {
    const clock = fastClock(1_000_000);
    const times: number[] = [];
    const inner = answers(
      {
        status: 429,
        headers: { 'retry-after': '3' },
        body: { ok: false, meta: { retryAfter: 8 } },
      },
      { status: 200, body: { ...EMPTY_PAGE, meta: { remain: 100, cost: 1, retryAfter: 30 } } },
      { status: 200 },
    );
    const c = client(async (req) => {
      times.push(clock.now());
      return inner(req);
    }, clock);
    await c.page('20260814', 200, '');
    await c.page('20260814', 200, '');
    expect(times[1]! - times[0]!).toBe(8000);
    expect(times[2]! - times[1]!).toBe(30_000);
  });

  it('backs off 1, 2, 4 s on a 429 without a wait, and gives up after maxRefusals', async () => {
    const clock = fastClock(0);
    const c = client(
      answers(...Array.from({ length: 6 }, () => ({ status: 429, body: 'x' }))),
      clock,
    );
    await expect(c.page('20260814', 200, '')).rejects.toThrow(/: HTTP 429 5 times in a row$/);
    expect(clock.sleeps).toEqual([1000, 2000, 4000, 8000]);
  });

  it('gives up on a wait longer than it may take', async () => {
    const c = client(answers({ status: 429, headers: { 'retry-after': '7200' } }), undefined, 900);
    await expect(c.page('20260814', 200, '')).rejects.toThrow(
      /: HTTP 429 asks to wait 7200 s, longer than 900 s$/,
    );
  });

  it('names the status, a plain error code, and never follows a redirect', async () => {
    const c = client(
      answers(
        { status: 401, body: { ok: false, error: { code: 'invalid_api_key', message: 'm' } } },
        { status: 302, headers: { location: 'http://169.254.169.254/' }, body: '' },
        { status: 503, body: { ok: false, error: { code: '<script>', message: 'm' } } },
      ),
    );
    const errs: string[] = [];
    for (let i = 0; i < 3; i++) {
      const err = await c.page('20260814', 200, '').then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(V2RequestError);
      errs.push((err as V2RequestError).reason);
    }
    expect(errs).toEqual([
      'HTTP 401 invalid_api_key',
      'HTTP 302 (redirects are not followed)',
      'HTTP 503',
    ]);
  });

  it('slows down while x-api-remain is low, and is back to its rate when it is high', async () => {
    const clock = fastClock(0);
    const low = { status: 200, headers: { 'x-api-remain': '1', 'x-api-cost': '1' } };
    const high = { status: 200, headers: { 'x-api-remain': '50', 'x-api-cost': '1' } };
    const c = client(answers(low, low, low, high, high, high), clock);
    for (let i = 0; i < 6; i++) await c.page('20260814', 200, '');
    expect(clock.sleeps).toEqual([2000, 4000, 8000, 1000, 1000]);
  });
});

describe('fetchGet', () => {
  let server: http.Server;
  let base: string;
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      if (req.url === '/redirect') res.writeHead(302, { location: '/elsewhere' }).end();
      else if (req.url === '/big') res.writeHead(200).end('x'.repeat(5000));
      else if (req.url === '/elsewhere') res.writeHead(200).end('followed');
      else res.writeHead(200, { etag: '"e1"' }).end('ok');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  const req = (path: string, maxBytes = 1 << 20) => ({
    url: `${base}${path}`,
    headers: {},
    timeoutMs: 5000,
    maxBytes,
  });

  it('answers status, lower-case headers and body', async () => {
    const r = await fetchGet(req('/'));
    expect(r).toMatchObject({ status: 200, body: 'ok', headers: { etag: '"e1"' } });
  });

  it('does not follow a redirect', async () => {
    expect((await fetchGet(req('/redirect'))).status).toBe(302);
  });

  it('refuses an answer longer than maxBytes', async () => {
    await expect(fetchGet(req('/big', 1000))).rejects.toEqual(
      new HttpGetFailure('answer longer than 1000 bytes'),
    );
  });
});
