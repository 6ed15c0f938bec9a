import { describe, expect, it } from 'vitest';
import { latestBuiltDay, trainsByUnit } from '../../src/domain/records/day-units.js';
import { useTestDatabase } from '../helpers/test-db.js';

const t = useTestDatabase();
const D = 20_680;

describe('the latest built day and its trains by unit', () => {
  it('finds the latest day whose build wrote records, and each unit’s trains in record order', async () => {
    const { db } = t.current;
    expect(await latestBuiltDay(db)).toBeUndefined();
    await db.query(
      `INSERT INTO daily_record_builds (service_day, version, inputs)
       VALUES ($1, 1, ''), ($2, 1, '')`,
      [D - 1, D],
    );
    expect(await latestBuiltDay(db)).toBe(D);
    // A build that wrote no records for a later day (version 0) does not make it the latest.
    await db.query(
      `INSERT INTO daily_record_builds (service_day, version, inputs) VALUES ($1, 0, '')`,
      [D + 1],
    );
    expect(await latestBuiltDay(db)).toBe(D);
    const units = await db.query<{ id: number }>(
      `INSERT INTO emus (code, registered_by) VALUES ('CR400AF-2001', 'fleet'), ('CR400AF-2002', 'fleet')
       RETURNING id`,
    );
    const [a, b] = units.rows.map((r) => r.id) as [number, number];
    for (const [day, train, unit] of [
      [D, 'G1', a],
      [D, 'G7', b],
      [D, 'G2', a],
      [D - 1, 'G9', a],
    ] as const) {
      await db.query(
        `INSERT INTO daily_records (service_day, train_code, emu_id, support, sources,
                                    first_observed_at, last_observed_at, status, timetable_id)
         VALUES ($1, $2, $3, 1, '{crowd}', 0, 0, 1, NULL)`,
        [day, train, unit],
      );
    }
    const byUnit = await trainsByUnit(db, D);
    expect([...byUnit.keys()].sort()).toEqual([a, b].sort());
    expect(byUnit.get(a)!.map((r) => r.trainCode)).toEqual(['G1', 'G2']);
    expect(byUnit.get(b)).toEqual([{ trainCode: 'G7', timetableId: null, status: 1 }]);
    expect((await trainsByUnit(db, D + 5)).size).toBe(0);
  });
});
