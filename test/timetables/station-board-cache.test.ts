import { describe, expect, it } from 'vitest';
import { StationBoardCache } from '../../src/domain/timetables/station-board-cache.js';
import type { Queryable } from '../../src/shared/db/db.js';
import {
  STATION_CALLS_SQL,
  STATION_TIMETABLES_SQL,
  stationBoard,
} from '../../src/domain/timetables/station-board.js';
import { serviceDayFromYmd } from '../../src/shared/time/service-day.js';
import { useTestDatabase } from '../helpers/test-db.js';
import { ingestTimetableLines, timetable } from '../helpers/timetables.js';

const DAY = serviceDayFromYmd('20260814');

/** The db, counting the board's two statements and the timetables each asked for. */
function counting(db: Queryable) {
  const seen = { inForce: 0, calls: [] as number[][] };
  const wrapped: Queryable = {
    query: (sql, params) => {
      if (sql === STATION_TIMETABLES_SQL) seen.inForce++;
      if (sql === STATION_CALLS_SQL) seen.calls.push([...(params![1] as number[])].sort());
      return db.query(sql, params);
    },
    copyFrom: (...args) => db.copyFrom(...args),
  };
  return { db: wrapped, seen };
}

describe('StationBoardCache', () => {
  const t = useTestDatabase();

  it('reads again only which timetables are in force after a coverage change, and the calls of new ones', async () => {
    const { db } = t.current;
    const stop = (code: string, validFrom: string, arrive: string) =>
      timetable(code, validFrom, [
        ['起点', undefined, '06:00'],
        ['枢纽', arrive, undefined],
      ]);
    await ingestTimetableLines(
      db,
      [stop('G1', '20260701', '08:00'), stop('G2', '20260701', '07:00')],
      'a.ndjson',
    );
    const { db: counted, seen } = counting(db);
    const cache = new StationBoardCache(counted);
    const codes = async () => (await cache.board('枢纽', DAY)).map((e) => e.trainCode);

    expect(await codes()).toEqual(['G2', 'G1']);
    expect(await codes()).toEqual(['G2', 'G1']);
    expect(seen.inForce).toBe(1);
    expect(seen.calls).toHaveLength(1);

    // A new version of G1 in force from the day, earlier there, and a new train G3: the board
    // follows at once, and only the two new timetables' calls are read.
    await ingestTimetableLines(
      db,
      [stop('G1', '20260814', '06:30'), stop('G3', '20260701', '09:00')],
      'b.ndjson',
    );
    expect(await codes()).toEqual(['G1', 'G2', 'G3']);
    expect(seen.inForce).toBe(2);
    expect(seen.calls).toHaveLength(2);
    const ids = await db.query<{ id: number; train_code: string; n: number }>(
      `SELECT id, train_code FROM timetables WHERE train_code IN ('G1', 'G3') ORDER BY id DESC LIMIT 2`,
    );
    expect(seen.calls[1]).toEqual(ids.rows.map((r) => r.id).sort());

    // The day before still has the first version of G1: its entry is kept, nothing is read
    // but which timetables are in force.
    const before = await cache.board('枢纽', DAY - 1);
    expect(before.map((e) => e.trainCode)).toEqual(['G2', 'G1', 'G3']);
    expect(seen.calls).toHaveLength(2);

    // The same boards as read whole, without any cache.
    expect(await cache.board('枢纽', DAY)).toEqual(await stationBoard(db, '枢纽', DAY));
    expect(before).toEqual(await stationBoard(db, '枢纽', DAY - 1));
  });

  it('keeps a bounded number of calls: a station dropped from the cache is read whole again', async () => {
    const { db } = t.current;
    await ingestTimetableLines(
      db,
      [
        timetable('D1', '20260701', [
          ['东站', undefined, '06:00'],
          ['西站', '07:00', undefined],
        ]),
      ],
      'c.ndjson',
    );
    const { db: counted, seen } = counting(db);
    const cache = new StationBoardCache(counted, { maxCalls: 1 });
    await cache.board('东站', DAY);
    await cache.board('西站', DAY);
    await db.query(`UPDATE data_versions SET version = version + 1 WHERE name = 'timetables'`);
    await cache.board('东站', DAY);
    expect(seen.calls).toHaveLength(3);
    expect((await cache.board('东站', DAY)).map((e) => e.trainCode)).toEqual(['D1']);
  });
});
