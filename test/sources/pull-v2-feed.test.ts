import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiApp } from '../../src/http/api/app.js';
import {
  mergeEmu,
  retractObservations,
  undoCorrection,
} from '../../src/domain/corrections/apply-corrections.js';
import { listCorrections } from '../../src/domain/corrections/list-corrections.js';
import { buildDailyRecords } from '../../src/domain/records/build-daily-records.js';
import { listStaleDays } from '../../src/domain/records/stale-days.js';
import { readFeedCursor } from '../../src/domain/sources/feed-pull.js';
import { pullSource, SourcePullError } from '../../src/domain/sources/pull-source.js';
import { checkSourceSettings } from '../../src/domain/sources/source-config.js';
import { addSource, getSource } from '../../src/domain/sources/source-store.js';
import type { Db } from '../../src/shared/db/db.js';
import type { HttpGet } from '../../src/shared/io/http-get.js';
import { midnightOfServiceDay } from '../../src/shared/time/service-day.js';
import { makeApp } from '../api/helpers/api-harness.js';
import {
  FIRST_DAY,
  LAST_DAY,
  loadFixtureWeek,
  shanghaiClock,
} from '../api/helpers/fixture-week.js';
import { useTestDatabase } from '../helpers/test-db.js';
import { fastClock, standInUpstream, pairs } from './upstream.js';

const upstreamDb = useTestDatabase();
const mirrorDb = useTestDatabase();
const resumeDb = useTestDatabase();
const START = shanghaiClock('20260817', 3)();
const OPS = { via: 'cli', name: 'ops' } as const;

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

/** Builds the stale days of the week (what the worker does after their quiet period). */
async function buildStale(db: Db): Promise<number[]> {
  const days = (await listStaleDays(db))
    .map((s) => s.serviceDay)
    .filter((d) => d >= FIRST_DAY && d <= LAST_DAY);
  for (const d of days) await buildDailyRecords(db, d);
  return days;
}

async function sightings(db: Db, source: string): Promise<{ all: number; refs: number }> {
  const r = await db.query<{ all: number; refs: number }>(
    `SELECT count(*)::int AS all, count(DISTINCT ref)::int AS refs FROM observations WHERE source = $1`,
    [source],
  );
  return r.rows[0]!;
}

async function add(db: Db, name: string, url: string) {
  return addSource(db, checkSourceSettings({ name, kind: 'v2-feed', url }));
}

describe('following another emutrack change feed', () => {
  it('mirrors the records, follows a retraction, its undo and a merge, and a second pull adds nothing', async () => {
    const db = mirrorDb.current.db;
    const up = upstreamDb.current.db;
    await add(db, 'feed', upstreamUrl);
    const clock = fastClock(START);

    const first = await pullSource(db, 'feed', { clock, pageLimit: 40 });
    const upstreamPairs = await pairs(up);
    expect(upstreamPairs.length).toBeGreaterThan(50);
    expect(first.feed!.from).toBe('');
    expect(first.feed!.pages).toBeGreaterThan(1);
    expect(first.taken).toBe(upstreamPairs.length);
    expect(first.refused).toBe(0);
    expect(await readFeedCursor(db, (await getSource(db, 'feed')).id)).toBe(first.feed!.cursor);
    await buildStale(db);
    expect(await pairs(db)).toEqual(upstreamPairs);

    // Nothing new upstream: one request, nothing taken.
    const again = await pullSource(db, 'feed', { clock, pageLimit: 40 });
    expect(again.requests).toBe(1);
    expect(again.feed!.changes).toBe(0);
    expect(again.taken).toBe(0);
    expect(again.feed!.cursor).toBe(first.feed!.cursor);

    // A retraction upstream: the one sighting of a record goes, the day rebuilds there.
    const lone = await up.query<{ id: string; service_day: number }>(
      `SELECT o.id, o.service_day FROM observations o
        JOIN daily_records d ON d.service_day = o.service_day AND d.train_code = ANY (o.train_codes)
                            AND d.emu_id = o.emu_id
       WHERE d.support = 1 ORDER BY o.id LIMIT 1`,
    );
    const target = lone.rows[0]!;
    const retraction = await retractObservations(
      up,
      { observationId: Number(target.id) },
      'wrong unit',
      OPS,
    );
    for (const d of retraction.serviceDays) await buildDailyRecords(up, d);
    const afterRetraction = await pairs(up);
    expect(afterRetraction.length).toBe(upstreamPairs.length - 1);
    const gone = upstreamPairs.find((p) => !afterRetraction.includes(p))!;

    const followed = await pullSource(db, 'feed', { clock, pageLimit: 40 });
    expect(followed.feed!.retracted).toBe(1);
    expect(followed.taken).toBe(0);
    expect(await buildStale(db)).toContain(target.service_day);
    expect(await pairs(db)).toEqual(afterRetraction);
    expect(await pairs(db)).not.toContain(gone);
    const [made] = await listCorrections(db, { limit: 1 });
    expect(made).toMatchObject({ kind: 'retract', actor: { via: 'source', name: 'feed' } });
    expect(made!.reason).toMatch(/^removed upstream \(\S+ upstream, feed cursor \d+\.\d+\)$/);

    // The retraction undone upstream: the record comes back with its id, and here too.
    const undo = await undoCorrection(up, retraction.correctionId, 'it was right', OPS);
    for (const d of undo.serviceDays) await buildDailyRecords(up, d);
    const restored = await pullSource(db, 'feed', { clock, pageLimit: 40 });
    // Its id is new upstream (ids are stable across rebuilds, not across a removal): a new sighting.
    expect(restored.taken).toBe(1);
    await buildStale(db);
    expect(await pairs(db)).toEqual(upstreamPairs);

    // A merge upstream: the unit's records move to the other unit; here as well.
    const units = await up.query<{ code: string; n: number }>(
      `SELECT e.code, count(*)::int AS n FROM daily_records d JOIN emus e ON e.id = d.emu_id
        GROUP BY e.code HAVING count(*) >= 2 ORDER BY e.code LIMIT 2`,
    );
    const [from, into] = units.rows.map((u) => u.code);
    const merge = await mergeEmu(up, from!, into!, 'one unit', OPS);
    for (const d of merge.serviceDays) await buildDailyRecords(up, d);
    const afterMerge = await pairs(up);
    expect(afterMerge.some((p) => p.endsWith(` ${from}`))).toBe(false);
    const merged = await pullSource(db, 'feed', { clock, pageLimit: 40 });
    expect(merged.feed!.retracted).toBe(units.rows[0]!.n);
    await buildStale(db);
    expect(await pairs(db)).toEqual(afterMerge);

    // And once more: nothing.
    const before = await sightings(db, 'feed');
    const last = await pullSource(db, 'feed', { clock, pageLimit: 40 });
    expect(last.feed!.changes).toBe(0);
    expect(await sightings(db, 'feed')).toEqual(before);
    expect(before.all).toBe(before.refs);
  });

  it('resumes a pull cut on its second page where it stopped, with nothing stored twice', async () => {
    const db = resumeDb.current.db;
    const stand = await standInUpstream(upstream, (n) => (n === 2 ? '500' : 'pass'));
    try {
      const source = await add(db, 'cut', stand.url);
      const clock = fastClock(START);
      const err = await pullSource(db, 'cut', { clock, pageLimit: 25 }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(SourcePullError);
      const message = (err as SourcePullError).message;
      expect(message).toMatch(
        /^source cut: feed: GET http:\/\/127\.0\.0\.1:\d+\/api\/v2\/records\/changes\?limit=25&cursor=\d+\.\d+: HTTP 500$/,
      );
      expect((await getSource(db, 'cut')).lastError).toBe(message);
      const partial = (err as SourcePullError).partial!;
      expect(partial.feed!.pages).toBe(1);
      const stopped = await readFeedCursor(db, source.id);
      expect(stopped).toBe(partial.feed!.cursor);
      expect(stand.seen[1]!.url).toContain(`cursor=${stopped}`);
      const kept = await sightings(db, 'cut');
      expect(kept.all).toBe(partial.taken);
      expect(kept.all).toBeGreaterThan(0);

      const resumed = await pullSource(db, 'cut', { clock, pageLimit: 25 });
      expect(resumed.feed!.from).toBe(stopped);
      expect(stand.seen[2]!.url).toContain(`cursor=${stopped}`);
      expect(resumed.duplicate).toBe(0);
      const all = await sightings(db, 'cut');
      expect(all.all).toBe(all.refs);
      await buildStale(db);
      expect(await pairs(db)).toEqual(await pairs(upstreamDb.current.db));
      expect((await getSource(db, 'cut')).lastError).toBeNull();
    } finally {
      await stand.close();
    }
  });

  it('takes back its own retraction when a record comes back with its id, never an operator one', async () => {
    const db = resumeDb.current.db;
    const noon = midnightOfServiceDay(FIRST_DAY) + 12 * 3600;
    const change = (n: number, id: number, kind: 'added' | 'changed' | 'removed') => ({
      cursor: `${n}.${id}`,
      kind,
      cause: 'correction',
      id,
      serviceDay: FIRST_DAY,
      record:
        kind === 'removed'
          ? null
          : {
              id,
              serviceDay: FIRST_DAY,
              trainCode: `G${id}`,
              emuCode: 'CR400AF-2001',
              status: 0,
              firstObservedAt: noon,
            },
    });
    // The feed, page by page; each pull reads the next.
    const pages = [
      [change(1, 900, 'added'), change(1, 902, 'added')],
      [change(2, 900, 'removed'), change(2, 901, 'added'), change(2, 901, 'removed')],
      [change(3, 900, 'added'), change(3, 902, 'changed')],
    ];
    let served = 0;
    const get: HttpGet = async ({ url }) => {
      const items = pages[served++] ?? [];
      const cursor = new URL(url).searchParams.get('cursor') ?? '';
      const data = {
        cursor,
        limit: 500,
        nextCursor: items.at(-1)?.cursor ?? cursor,
        more: false,
        items,
      };
      return {
        status: 200,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ ok: true, error: '', data }),
      };
    };
    await add(db, 'crafted', 'http://upstream.invalid');
    const clock = fastClock(START);
    expect((await pullSource(db, 'crafted', { clock, get })).taken).toBe(2);
    await retractObservations(db, { source: 'crafted', ref: '902' }, 'seen wrong here', OPS);
    const second = await pullSource(db, 'crafted', { clock, get });
    // 901 was added and removed within one page: nothing of it is stored.
    expect(second.feed).toMatchObject({ changes: 3, retracted: 1, restored: 0 });
    expect(second.taken).toBe(0);
    const third = await pullSource(db, 'crafted', { clock, get });
    expect(third.feed).toMatchObject({ cursor: '3.902', restored: 1, retracted: 0 });
    const counting = await db.query<{ ref: string }>(
      `SELECT o.ref FROM observations o
        WHERE o.source = 'crafted'
          AND NOT EXISTS (SELECT 1 FROM retracted_observations r WHERE r.observation_id = o.id)
        ORDER BY o.ref`,
    );
    expect(counting.rows.map((r) => r.ref)).toEqual(['900']);

    // Another process's pull stores the same page while this one reads it: applied once only.
    const source = await getSource(db, 'crafted');
    const racing: HttpGet = async (request) => {
      await db.query(`UPDATE source_feed_cursors SET cursor = '4.903' WHERE source_id = $1`, [
        source.id,
      ]);
      return get(request);
    };
    pages.push([change(4, 903, 'added')]);
    served = 3;
    const raced = await pullSource(db, 'crafted', { clock, get: racing }).catch((e: unknown) => e);
    expect((raced as SourcePullError).message).toMatch(
      /: another pull of this source moved its cursor meanwhile; this one stops$/,
    );
    expect(await readFeedCursor(db, source.id)).toBe('4.903');
    expect((await sightings(db, 'crafted')).all).toBe(2);
  });
});
