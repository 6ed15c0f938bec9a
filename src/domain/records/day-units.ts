import type { Queryable } from '../../shared/db/db.js';
import { dailyRecordLines, parseRecordLine } from './read-daily-records.js';

/**
 * The latest service day whose build wrote records (daily_record_builds.version > 0: the rule of
 * readLatestBuiltDay, latest-built-day.ts, without its counts), or undefined before any. Such a
 * day appears only in a build that moves its 'records' version and 'histories'.
 */
export async function latestBuiltDay(db: Queryable): Promise<number | undefined> {
  const r = await db.query<{ day: number | null }>(
    'SELECT max(service_day) AS day FROM daily_record_builds WHERE version > 0',
  );
  return r.rows[0]?.day ?? undefined;
}

/** One train a unit ran on a day: its number and timetable (null when none was in force). */
export interface UnitDayTrain {
  trainCode: string;
  timetableId: number | null;
  status: number;
}

/**
 * The trains each unit ran on a service day (the day's records, as GetDailyRecords reads them),
 * by emuId; a unit's trains in record order (the order the build wrote them, ascending id).
 */
export async function trainsByUnit(
  db: Queryable,
  serviceDay: number,
): Promise<Map<number, UnitDayTrain[]>> {
  const lines = await dailyRecordLines(db, serviceDay);
  const byUnit = new Map<number, UnitDayTrain[]>();
  // The lines come highest id first: walked backwards, each unit's trains come out ascending.
  for (let i = lines.length - 1; i >= 0; i--) {
    const record = parseRecordLine(lines[i]!);
    let trains = byUnit.get(record.emuId);
    if (!trains) byUnit.set(record.emuId, (trains = []));
    trains.push({
      trainCode: record.trainCode,
      timetableId: record.timetableId,
      status: record.status,
    });
  }
  return byUnit;
}
