import net, { type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiApp } from '../../src/http/api/app.js';
import { buildDailyRecords } from '../../src/domain/records/build-daily-records.js';
import {
  pullSource,
  SourcePullError,
  type PullResult,
} from '../../src/domain/sources/pull-source.js';
import { checkSourceSettings } from '../../src/domain/sources/source-config.js';
import { addSource, getSource, readDayCursor } from '../../src/domain/sources/source-store.js';
import { makeApp } from '../api/helpers/api-harness.js';
import {
  FIRST_DAY,
  LAST_DAY,
  loadFixtureWeek,
  shanghaiClock,
} from '../api/helpers/fixture-week.js';
import { ymdOfServiceDay as ymdOf } from '../../src/shared/time/service-day.js';
import { useTestDatabase } from '../helpers/test-db.js';
import { fastClock, pairs } from './upstream.js';

const upstreamDb = useTestDatabase();
const mirrorDb = useTestDatabase();
const START = shanghaiClock('20260817', 3)();
const DAYS = { from: FIRST_DAY, to: LAST_DAY };
/** The connections (counted from 1) whose answer the proxy cuts half-way through its body. */
const CUTS = new Set([3, 4, 9, 16]);

interface Proxy {
  url: string;
  /** The request line of each connection, in order. */
  requests: string[];
  cutting: boolean;
  close(): Promise<void>;
}

/**
 * A TCP proxy in front of the upstream, one request per connection (it asks the server to close
 * each: `connection: close`), so a connection's bytes from the server are one answer. While
 * `cutting`, the connections in CUTS get the answer's head and half of its body, then the
 * socket is destroyed: the client has begun reading a page that never ends.
 */
async function startProxy(upstreamPort: number): Promise<Proxy> {
  const sockets = new Set<net.Socket>();
  const proxy: Proxy = { url: '', requests: [], cutting: true, close: async () => {} };
  const server = net.createServer((client) => {
    const n = proxy.requests.length + 1;
    proxy.requests.push('');
    const cut = proxy.cutting && CUTS.has(n);
    const upstream = net.connect(upstreamPort, '127.0.0.1');
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => {});
    }
    let head = true;
    client.on('data', (chunk: Buffer) => {
      let text = chunk.toString('latin1');
      if (head) {
        head = false;
        proxy.requests[n - 1] = text.slice(0, text.indexOf('\r\n'));
        text = /\r\nconnection:[^\r]*/i.test(text)
          ? text.replace(/\r\nconnection:[^\r]*/i, '\r\nconnection: close')
          : text.replace('\r\n', '\r\nconnection: close\r\n');
      }
      upstream.write(Buffer.from(text, 'latin1'));
    });
    let answer = Buffer.alloc(0);
    upstream.on('data', (chunk: Buffer) => {
      if (!cut) return void client.write(chunk);
      answer = Buffer.concat([answer, chunk]);
      const end = answer.indexOf('\r\n\r\n');
      if (end < 0) return;
      const length = /\r\ncontent-length:\s*(\d+)/i.exec(answer.subarray(0, end).toString());
      // Half of a body of known length, else its first 40 bytes (a page is far longer).
      const keep = end + 4 + (length ? Math.floor(Number(length[1]) / 2) : 40);
      if (answer.length < keep) return;
      client.write(answer.subarray(0, keep), () => {
        client.destroy();
        upstream.destroy();
      });
    });
    upstream.on('end', () => client.end());
    client.on('end', () => upstream.end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  proxy.close = () =>
    new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    });
  return proxy;
}

let upstream: ApiApp;
let proxy: Proxy;

beforeAll(async () => {
  await loadFixtureWeek(upstreamDb.current.db);
  upstream = await makeApp(upstreamDb.current.db, {
    env: { QUOTA_ANONYMOUS_CAPACITY: '100000', QUOTA_REFILL_AMOUNT: '100000' },
  });
  await upstream.listen({ host: '127.0.0.1', port: 0 });
  proxy = await startProxy((upstream.server.address() as AddressInfo).port);
}, 120_000);
afterAll(async () => {
  await proxy?.close();
  await upstream?.close();
});

describe('a proxy that cuts the connection in the middle of pages', () => {
  it('fails each pull with a clear error on the source, resumes at the page cut, and ends with the upstream week exactly', async () => {
    const db = mirrorDb.current.db;
    await addSource(db, checkSourceSettings({ name: 'cut', kind: 'v2', url: proxy.url }));
    const source = await getSource(db, 'cut');
    const clock = fastClock(START);
    const results: PullResult[] = [];
    const pull = () => pullSource(db, 'cut', { ...DAYS, clock, pageLimit: 5 });

    // One failed pull per cut: each stops at the answer cut, its good pages kept.
    for (let failed = 0; failed < CUTS.size; failed++) {
      const err = await pull().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err, `pull ${failed + 1}`).toBeInstanceOf(SourcePullError);
      const partial = (err as SourcePullError).partial!;
      results.push(partial);
      const s = await getSource(db, 'cut');
      expect(s.lastError).toBe((err as Error).message);
      expect(s.lastError).toMatch(
        new RegExp(
          `^source cut: \\d{8}: GET ${proxy.url}/api/v2/records/daily\\?date=\\d{8}&limit=5(&cursor=\\d+%3A\\d+)?: connection cut while reading the answer \\(.+\\)$`,
        ),
      );
      // The pull's last request was the one cut, and it was asked for the page after the last
      // one stored: the day's cursor (or the day's first page, none stored yet).
      const cutAt = proxy.requests.length;
      expect(CUTS.has(cutAt)).toBe(true);
      const day = partial.days.at(-1)!;
      const cursor = await readDayCursor(db, source.id, day.serviceDay);
      const asked = new URL(proxy.requests[cutAt - 1]!.split(' ')[1]!, proxy.url).searchParams;
      expect(asked.get('cursor') ?? '').toBe(cursor?.completed ? '' : (cursor?.nextCursor ?? ''));
    }
    expect(results.some((r) => r.days.at(-1)!.resumedAt !== '')).toBe(true);

    // Through a healthy proxy the next pull finishes where the last one stopped.
    proxy.cutting = false;
    const firstHealthy = proxy.requests.length;
    const stopped = await readDayCursor(db, source.id, results.at(-1)!.days.at(-1)!.serviceDay);
    const last = await pull();
    results.push(last);
    const resumed = stopped && !stopped.completed ? stopped.nextCursor : '';
    const day = last.days.find((d) => d.serviceDay === results.at(-2)!.days.at(-1)!.serviceDay)!;
    expect(day.resumedAt).toBe(resumed);
    const firstAsked = proxy.requests
      .slice(firstHealthy)
      .map((line) => new URL(line.split(' ')[1]!, proxy.url).searchParams)
      .find((q) => q.get('date') === String(ymdOf(day.serviceDay)))!;
    expect(firstAsked.get('cursor') ?? '').toBe(resumed);
    expect((await getSource(db, 'cut')).lastError).toBeNull();

    // Nothing lost, nothing twice: one observation per upstream record, and the same pairs.
    const upstreamRecords = (
      await upstreamDb.current.db.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM daily_records WHERE service_day BETWEEN $1 AND $2',
        [FIRST_DAY, LAST_DAY],
      )
    ).rows[0]!.n;
    expect(results.reduce((n, r) => n + r.taken, 0)).toBe(upstreamRecords);
    expect(results.every((r) => r.duplicate === 0)).toBe(true);
    const stored = await db.query<{ n: number; refs: number }>(
      `SELECT count(*)::int AS n, count(DISTINCT ref)::int AS refs FROM observations WHERE source = 'cut'`,
    );
    expect(stored.rows[0]).toEqual({ n: upstreamRecords, refs: upstreamRecords });
    for (let d = FIRST_DAY; d <= LAST_DAY; d++) {
      expect((await readDayCursor(db, source.id, d))!.completed).toBe(true);
      await buildDailyRecords(db, d);
    }
    expect(await pairs(db)).toEqual(await pairs(upstreamDb.current.db));
  });
});
