import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiApp } from '../../src/http/api/app.js';
import { buildDailyRecords } from '../../src/domain/records/build-daily-records.js';
import { listStaleDays } from '../../src/domain/records/stale-days.js';
import { pullSource, SourcePullError } from '../../src/domain/sources/pull-source.js';
import { checkSourceSettings } from '../../src/domain/sources/source-config.js';
import {
  addSource,
  getSource,
  readDayCursor,
  removeSource,
} from '../../src/domain/sources/source-store.js';
import { fetchGet, type HttpGet } from '../../src/shared/io/http-get.js';
import type { Db } from '../../src/shared/db/db.js';
import { ymdOfServiceDay } from '../../src/shared/time/service-day.js';
import { makeApp } from '../api/helpers/api-harness.js';
import {
  FIRST_DAY,
  LAST_DAY,
  loadFixtureWeek,
  shanghaiClock,
} from '../api/helpers/fixture-week.js';
import { useTestDatabase } from '../helpers/test-db.js';
import { fastClock, standInUpstream, type Behaviour, pairs } from './upstream.js';

const upstreamDb = useTestDatabase();
const mirrorDb = useTestDatabase();
const scratchDb = useTestDatabase();
const START = shanghaiClock('20260817', 3)();
const DAYS = { from: FIRST_DAY, to: LAST_DAY };

let upstream: ApiApp;
let upstreamUrl: string;

beforeAll(async () => {
  await loadFixtureWeek(upstreamDb.current.db);
  upstream = await makeApp(upstreamDb.current.db, {
    env: { QUOTA_ANONYMOUS_CAPACITY: '100000', QUOTA_REFILL_AMOUNT: '100000' },
  });
  await upstream.listen({ host: '127.0.0.1', port: 0 });
  upstreamUrl = `http://127.0.0.1:${(upstream.server.address() as AddressInfo).port}`;
}, 120_000);
afterAll(async () => {
  await upstream?.close();
});

async function observationsOf(db: Db, source: string, day?: number): Promise<number> {
  const r = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM observations WHERE source = $1 AND ($2::int IS NULL OR service_day = $2)`,
    [source, day ?? null],
  );
  return r.rows[0]!.n;
}

async function upstreamRecords(day: number): Promise<number> {
  const r = await upstreamDb.current.db.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM daily_records WHERE service_day = $1',
    [day],
  );
  return r.rows[0]!.n;
}

async function add(db: Db, name: string, url: string, extra: { apiKeyEnv?: string } = {}) {
  return addSource(db, checkSourceSettings({ name, kind: 'v2', url, ...extra }));
}

describe('pulling the fixture week from another emutrack server', () => {
  it('mirrors every day: the same train-unit pairs after building, then a second pull adds nothing', async () => {
    const db = mirrorDb.current.db;
    await add(db, 'peer', upstreamUrl);
    const clock = fastClock(START);
    const first = await pullSource(db, 'peer', { ...DAYS, clock, pageLimit: 5 });
    let records = 0;
    for (let d = FIRST_DAY; d <= LAST_DAY; d++) records += await upstreamRecords(d);
    expect(records).toBeGreaterThan(50);
    expect(first.taken).toBe(records);
    expect(first.refused).toBe(0);
    expect(first.days.map((d) => d.serviceDay)).toEqual(
      Array.from({ length: 7 }, (_, i) => FIRST_DAY + i),
    );
    // Pages of 5: more than one page a day, and paced at 1 request a second (the clock's waits).
    expect(first.days.every((d) => d.pages >= 2)).toBe(true);
    expect(clock.now() - START).toBeGreaterThanOrEqual((first.requests - 1) * 1000);
    // The days that received sightings are stale (late data), and build as late data does.
    const stale = (await listStaleDays(db)).map((s) => s.serviceDay);
    for (let d = FIRST_DAY; d <= LAST_DAY; d++) expect(stale).toContain(d);
    for (let d = FIRST_DAY; d <= LAST_DAY; d++) await buildDailyRecords(db, d);
    const upstreamPairs = await pairs(upstreamDb.current.db);
    expect(upstreamPairs.length).toBe(records);
    expect(await pairs(db)).toEqual(upstreamPairs);
    const s = await getSource(db, 'peer');
    expect(s.lastError).toBeNull();
    expect(s.lastSuccessAt?.getTime()).toBe(clock.now());
    expect(s.linesTaken).toBe(records);
    expect(s).toMatchObject({ requests: first.requests, refusals: 0, errors: 0 });

    // Again: each day's first page is asked with its ETag, answered 304, and nothing is added.
    const before = await observationsOf(db, 'peer');
    const again = await pullSource(db, 'peer', { ...DAYS, clock, pageLimit: 5 });
    expect(again.taken).toBe(0);
    expect(again.days.every((d) => d.unchanged)).toBe(true);
    expect(again.requests).toBe(7);
    expect(await observationsOf(db, 'peer')).toBe(before);
    // The 304s are requests too, counted on the source.
    expect((await getSource(db, 'peer')).requests).toBe(first.requests + 7);
  });

  it('adds nothing either from an upstream without ETags (the records are known by their ids)', async () => {
    const db = scratchDb.current.db;
    const up = await standInUpstream(upstream, () => 'no-etag');
    try {
      await add(db, 'no-etags', up.url);
      const clock = fastClock(START);
      const a = await pullSource(db, 'no-etags', { from: LAST_DAY, to: LAST_DAY, clock });
      expect(a.taken).toBe(await upstreamRecords(LAST_DAY));
      const b = await pullSource(db, 'no-etags', { from: LAST_DAY, to: LAST_DAY, clock });
      expect(up.seen.every((r) => r.ifNoneMatch === undefined)).toBe(true);
      expect(b.taken).toBe(0);
      expect(b.duplicate).toBe(a.taken);
    } finally {
      await up.close();
    }
  });

  it('defaults to yesterday and today by the clock', async () => {
    const db = scratchDb.current.db;
    const up = await standInUpstream(upstream);
    try {
      await add(db, 'default-days', up.url);
      const clock = fastClock(shanghaiClock('20260815', 9)());
      const r = await pullSource(db, 'default-days', { clock });
      expect(r.days.map((d) => ymdOfServiceDay(d.serviceDay))).toEqual(['20260814', '20260815']);
      expect(up.seen.map((s) => new URL(s.url, up.url).searchParams.get('date'))).toEqual([
        '20260814',
        '20260815',
      ]);
    } finally {
      await up.close();
    }
  });

  it('finishes against a quota of a few tokens, never asking before Retry-After', async () => {
    const db = scratchDb.current.db;
    const clock = fastClock(START);
    const tight = await makeApp(upstreamDb.current.db, {
      clock: () => clock.now(),
      env: {
        QUOTA_ANONYMOUS_CAPACITY: '3',
        QUOTA_REFILL_AMOUNT: '1',
        QUOTA_REFILL_INTERVAL_SECONDS: '20',
        QUOTA_COST_RECORDS_DAILY: '1',
        QUOTA_COST_RECORDS_DAILY_PER_RECORD: '0',
        QUOTA_MIN_COST: '1',
      },
    });
    const up = await standInUpstream(tight);
    const log: { at: number; status: number; retryAfter: number | undefined }[] = [];
    const get: HttpGet = async (req) => {
      const at = clock.now();
      const res = await fetchGet(req);
      const ra = res.headers['retry-after'];
      log.push({ at, status: res.status, retryAfter: ra === undefined ? undefined : Number(ra) });
      return res;
    };
    try {
      await add(db, 'tight', up.url);
      const r = await pullSource(db, 'tight', { ...DAYS, clock, get, pageLimit: 10 });
      let records = 0;
      for (let d = FIRST_DAY; d <= LAST_DAY; d++) records += await upstreamRecords(d);
      expect(r.taken).toBe(records);
      expect(r.refusals).toBeGreaterThan(0);
      const refused = log.filter((l) => l.status === 429);
      expect(refused.length).toBe(r.refusals);
      for (const [i, l] of log.entries()) {
        if (l.status !== 429) continue;
        expect(l.retryAfter).toBeGreaterThan(0);
        const next = log[i + 1];
        expect(next, 'a request follows every 429').toBeDefined();
        expect(next!.at).toBeGreaterThanOrEqual(l.at + l.retryAfter! * 1000);
      }
      // x-api-remain ran low: after an answer taken, the next request waited past the pace of
      // 1 a second (the source's rate) before any 429 said so.
      const slowed = log.findIndex(
        (l, i) => l.status === 200 && i + 1 < log.length && log[i + 1]!.at - l.at >= 2000,
      );
      expect(slowed).toBeGreaterThanOrEqual(0);
      expect(slowed).toBeLessThan(log.findIndex((l) => l.status === 429));
      const tightSource = await getSource(db, 'tight');
      expect(tightSource.lastError).toBeNull();
      // Every request and every 429 is counted on the source, 429s among the requests.
      expect(tightSource).toMatchObject({ requests: log.length, refusals: refused.length });
    } finally {
      await up.close();
      await tight.close();
    }
  });
});

describe('an upstream that misbehaves', () => {
  const day = serviceDayOfFixture('20260814');

  function serviceDayOfFixture(ymd: string): number {
    return FIRST_DAY + (Number(ymd) - 20260810);
  }

  /** Pages 1 and 2 of the day pass, the third does `what`. */
  async function cutAtThirdPage(name: string, what: Behaviour, timeoutMs?: number) {
    const db = scratchDb.current.db;
    const up = await standInUpstream(upstream, (n) => (n === 3 ? what : 'pass'));
    try {
      await add(db, name, up.url);
      const err = await pullSource(db, name, {
        from: day,
        to: day + 1,
        clock: fastClock(START),
        pageLimit: 5,
        ...(timeoutMs ? { timeoutMs } : {}),
      }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(SourcePullError);
      const source = await getSource(db, name);
      expect(source.lastError).toBe((err as Error).message);
      expect(source.lastError).not.toContain('\n');
      expect(source.lastError).toContain(
        `source ${name}: 20260814: GET ${up.url}/api/v2/records/daily?date=20260814&limit=5&cursor=`,
      );
      // The two good pages are kept, and nothing of the next day was asked for.
      expect(await observationsOf(db, name, day)).toBe(10);
      expect(source.linesTaken).toBe(10);
      expect(up.seen).toHaveLength(3);
      // The failed request counts like the two that were answered; the pull counts as an error.
      expect(source).toMatchObject({ requests: 3, errors: 1 });
      const cursor = await readDayCursor(db, source.id, day);
      expect(cursor).toMatchObject({ completed: false, pages: 2 });
      expect(cursor!.nextCursor).toMatch(new RegExp(`^${day}:\\d+$`));
      return { message: source.lastError!, cursor: cursor!.nextCursor };
    } finally {
      await up.close();
    }
  }

  it('HTML: a clear error on the source, the good pages kept, and the next pull resumes there', async () => {
    const { message, cursor } = await cutAtThirdPage('html', 'html');
    expect(message).toMatch(/: answer is HTML, not JSON \(content-type text\/html\)$/);
    const db = scratchDb.current.db;
    const up = await standInUpstream(upstream);
    try {
      await db.query('UPDATE sources SET base_url = $1 WHERE name = $2', [up.url, 'html']);
      const r = await pullSource(db, 'html', {
        from: day,
        to: day,
        clock: fastClock(START),
        pageLimit: 5,
      });
      expect(new URL(up.seen[0]!.url, up.url).searchParams.get('cursor')).toBe(cursor);
      expect(r.days[0]!.resumedAt).toBe(cursor);
      expect(await observationsOf(db, 'html', day)).toBe(await upstreamRecords(day));
      const s = await getSource(db, 'html');
      expect(s.lastError).toBeNull();
      expect((await readDayCursor(db, s.id, day))!.completed).toBe(true);
    } finally {
      await up.close();
    }
  });

  it('malformed JSON', async () => {
    const { message } = await cutAtThirdPage('bad-json', 'bad-json');
    expect(message).toMatch(/: answer is not JSON \(content-type application\/json, \d+ bytes\)$/);
  });

  it('a 500', async () => {
    expect((await cutAtThirdPage('http-500', '500')).message).toMatch(/: HTTP 500$/);
  });

  it('a changed schema: the field is named', async () => {
    expect((await cutAtThirdPage('schema', 'schema')).message).toMatch(
      /: unexpected page: data\.items\.0\.emuId: .+/,
    );
  });

  it('a cut connection', async () => {
    expect((await cutAtThirdPage('cut', 'cut')).message).toMatch(/: connection failed \(.+\)$/);
  });

  it('no answer within the timeout', async () => {
    expect((await cutAtThirdPage('hang', 'hang', 300)).message).toMatch(
      /: no answer within 300 ms$/,
    );
  });

  it('a cursor that is not one of the day (an address): refused, never followed', async () => {
    const { message } = await cutAtThirdPage('ssrf', 'foreign-cursor');
    expect(message).toMatch(/: data\.nextCursor: expected "" or "\d+:<id>"/);
  });

  it('leaves other sources untouched', async () => {
    const db = scratchDb.current.db;
    const before = await getSource(db, 'no-etags');
    const up = await standInUpstream(upstream, () => '500');
    try {
      await add(db, 'down', up.url);
      await expect(pullSource(db, 'down', { ...DAYS, clock: fastClock(START) })).rejects.toThrow(
        /^source down: 20260810: GET .*: HTTP 500$/,
      );
      expect(await getSource(db, 'no-etags')).toEqual(before);
    } finally {
      await up.close();
    }
  });

  it('sends the key from the environment as a Bearer token and never prints it', async () => {
    const db = scratchDb.current.db;
    const up = await standInUpstream(upstream, () => '500');
    try {
      await add(db, 'keyed', up.url, { apiKeyEnv: 'PEER_KEY' });
      const env = { PEER_KEY: 'sk_live_do-not-print' };
      const err = await pullSource(db, 'keyed', { ...DAYS, env, clock: fastClock(START) }).catch(
        (e: unknown) => e as Error,
      );
      expect(up.seen[0]!.authorization).toBe('Bearer sk_live_do-not-print');
      expect(String(err)).not.toContain('do-not-print');
      const stored = await db.query('SELECT * FROM sources WHERE name = $1', ['keyed']);
      expect(JSON.stringify(stored.rows)).not.toContain('do-not-print');
      await expect(pullSource(db, 'keyed', { ...DAYS, env: {} })).rejects.toThrow(
        'source keyed: environment variable PEER_KEY (its API key) is not set',
      );
      await removeSource(db, 'keyed');
    } finally {
      await up.close();
    }
  });
});
