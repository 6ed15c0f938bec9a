import { describe, expect, it } from 'vitest';
import { createPostgresDb } from '../../src/shared/db/postgres-db.js';
import { renderDailyExport } from '../../src/domain/exports/daily-export-csv.js';
import { buildDailyRecords } from '../../src/domain/records/build-daily-records.js';
import { PageCache } from '../../src/http/api/page-cache.js';
import {
  CIRCULATIONS_VERSION,
  DataVersionReader,
  recordsVersion,
} from '../../src/shared/cache/data-versions.js';
import { serviceDayFromYmd } from '../../src/shared/time/service-day.js';
import { ingestSightings, sightings } from '../helpers/observations.js';
import { useTestDatabase } from '../helpers/test-db.js';
import { ingestTimetableLines, timetable } from '../helpers/timetables.js';

const t = useTestDatabase();

/** What a records page shows: every record of the day (the render a route would do). */
async function renderDay(db: { query: typeof t.current.db.query }, day: number): Promise<string> {
  const r = await db.query<{ page: string | null }>(
    `SELECT string_agg(concat_ws(',', id, train_code, emu_id, support, status), ';' ORDER BY id) AS page
       FROM daily_records WHERE service_day = $1`,
    [day],
  );
  return r.rows[0]!.page ?? '';
}

describe('page cache: kept pages follow the version the build bumps', () => {
  it('serves the new bytes right after a changing rebuild, in one process and in another', async () => {
    const day = serviceDayFromYmd('20260801');
    await ingestSightings(t.current.db, sightings('20260801', 'G80', 'CR400AF-2601', 2));
    await buildDailyRecords(t.current.db, day);

    // A second "process": its own pool, its own cache.
    const other = createPostgresDb({ connectionString: t.current.url, max: 2 });
    try {
      const here = new PageCache(new DataVersionReader(t.current.db));
      const there = new PageCache(new DataVersionReader(other));
      let renders = 0;
      // The page as text, and whether it came from the cache.
      const get = async (cache: PageCache, db: typeof other) => {
        const page = await cache.page(`records:${day}:first`, recordsVersion(day), () => {
          renders++;
          return renderDay(db, day).then((body) => ({ body, records: 1 }));
        });
        return { body: page.body.toString(), cached: page.cached };
      };

      const first = await get(here, t.current.db);
      expect(first.cached).toBe(false);
      expect(await get(here, t.current.db)).toMatchObject({ body: first.body, cached: true });
      expect((await get(there, other)).body).toBe(first.body);
      expect(await get(there, other)).toMatchObject({ body: first.body, cached: true });
      expect(renders).toBe(2);

      // A rebuild that changes nothing keeps the version: both keep serving their page.
      expect(await buildDailyRecords(t.current.db, day, {}, { force: true })).toMatchObject({
        inserted: 0,
        updated: 0,
      });
      expect(await get(here, t.current.db)).toMatchObject({ body: first.body, cached: true });
      expect(await get(there, other)).toMatchObject({ body: first.body, cached: true });

      // New sightings, a rebuild that changes the day: the very next request, in either
      // process, gets the new bytes.
      await ingestSightings(t.current.db, sightings('20260801', 'G81', 'CR400AF-2602', 2));
      const rebuilt = await buildDailyRecords(t.current.db, day);
      expect(rebuilt.inserted).toBe(1);
      const fresh = await renderDay(t.current.db, day);
      expect(fresh).not.toBe(first.body);
      expect(await get(here, t.current.db)).toMatchObject({ body: fresh, cached: false });
      expect(await get(there, other)).toMatchObject({ body: fresh, cached: false });
      expect(await get(there, other)).toMatchObject({ body: fresh, cached: true });
    } finally {
      await other.close();
    }
  });

  it('reads the export index and timetable versions, bumped in the writers’ transactions', async () => {
    const reader = new DataVersionReader(t.current.db);
    const exports0 = await reader.read({ name: 'exports' });
    const timetables0 = await reader.read({ name: 'timetables' });
    const day = serviceDayFromYmd('20260801');
    await renderDailyExport(t.current.db, day);
    expect(await reader.read({ name: 'exports' })).toBe(exports0 + 1);
    // The same day rendered again: its bytes may change, the index (the days listed) does not.
    await renderDailyExport(t.current.db, day);
    expect(await reader.read({ name: 'exports' })).toBe(exports0 + 1);
    await ingestTimetableLines(t.current.db, [
      timetable('G90', '20260801', [
        ['Beijingnan', undefined, '08:00'],
        ['Tianjin', '08:30'],
      ]),
    ]);
    expect(await reader.read({ name: 'timetables' })).toBeGreaterThan(timetables0);
  });

  it('coalesces concurrent reads into few queries, each begun after its request', async () => {
    let queries = 0;
    const counting = {
      query: (async (sql: string, params?: unknown[]) => {
        queries++;
        return t.current.db.query(sql, params);
      }) as typeof t.current.db.query,
      copyFrom: t.current.db.copyFrom.bind(t.current.db),
    };
    const reader = new DataVersionReader(counting, { maxConcurrentReads: 1 });
    const days = Array.from({ length: 50 }, (_, i) => serviceDayFromYmd('20260801') + (i % 5));
    const versions = await Promise.all(days.map((d) => reader.read(recordsVersion(d))));
    expect(versions.every((v) => Number.isInteger(v))).toBe(true);
    // Asked for in one event-loop turn: one read, begun at the end of that turn, serves all 50.
    expect(queries).toBe(1);
    // A request that arrives while a read runs waits for the next read, begun after it arrived.
    const first = reader.read(recordsVersion(days[0]!));
    await new Promise((resolve) => setImmediate(resolve));
    const second = reader.read(recordsVersion(days[1]!));
    await Promise.all([first, second]);
    expect(queries).toBe(3);
  });

  it("keep: 'when-asked-again' keeps a page from its second render at a version, not its first", async () => {
    const cache = new PageCache(new DataVersionReader(t.current.db));
    const day = serviceDayFromYmd('20260802');
    let renders = 0;
    const get = (key: string) =>
      cache.page(
        key,
        recordsVersion(day),
        async (version) => {
          renders++;
          return { body: `{"key":"${key}","at":"${version}"}`, records: 1 };
        },
        { keep: 'when-asked-again' },
      );
    const once = await get('a');
    // Asked for once: rendered and sent as text, not kept.
    expect(once).toMatchObject({ cached: false, body: expect.any(String) });
    expect(cache.stats().pages).toBe(0);
    const twice = await get('a');
    expect(twice.cached).toBe(false);
    expect(Buffer.isBuffer(twice.body)).toBe(true);
    expect(twice.body.toString()).toBe(once.body);
    // The same entity tag whether kept or not: it names the key and version, not the render.
    expect(twice.etag).toBe(once.etag);
    expect(await get('a')).toMatchObject({ cached: true, etag: once.etag });
    expect(renders).toBe(2);
    // Another page is asked for once on its own account.
    expect((await get('b')).cached).toBe(false);
    expect(cache.stats().pages).toBe(1);
  });
});

describe('page cache: a page of several versions', () => {
  it('is kept while none moves, rendered again when any one does, under a new ETag', async () => {
    const db = t.current.db;
    const cache = new PageCache(new DataVersionReader(db));
    const depends = [{ name: 'histories' }, CIRCULATIONS_VERSION] as const;
    const versions: string[] = [];
    const get = () =>
      cache.page('several', depends, async (version) => {
        versions.push(version);
        return { body: 'page', records: 1 };
      });
    const first = await get();
    expect((await get()).cached).toBe(true);
    expect(versions).toEqual([expect.stringMatching(/^histories:0@\d+\+circulations:0@\d+$/)]);
    // The second version alone moves (migration 031: a change of the official tables).
    await db.query('TRUNCATE official_circulations CASCADE');
    const moved = await get();
    expect(moved.cached).toBe(false);
    expect(moved.etag).not.toBe(first.etag);
    expect(versions).toHaveLength(2);
    expect(versions[1]!.split('+')[0]).toBe(versions[0]!.split('+')[0]);
  });
});
