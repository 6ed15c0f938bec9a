import type { Db, Queryable } from '../../shared/db/db.js';
import { recordRejects, type RejectedLine } from '../ingest/record-rejects.js';
import { markBuiltDaysStaleFrom } from '../records/stale-days.js';
import {
  coverageChanges,
  deriveCoverage,
  firstDifferentDay,
  keepCoverageIds,
  type CoverageRow,
  type TimetableVersion,
} from './coverage-versions.js';
import { timetableContentHash, timetableEnds } from './timetable-content.js';
import type { TimetableInput } from './timetable-input.js';

export interface StoredChunk {
  /** Timetables whose content was not stored before. */
  newContents: number;
  /** Timetables that declared at least one new or changed version. */
  changed: number;
  /** Timetables whose every version was stored already: nothing changed. */
  unchanged: number;
  /** The earliest service day whose timetable in force changed, for any number. */
  changedFrom: number | undefined;
}

// Lock class for timetable writes: two ingestions touching one train number would otherwise
// derive its coverage from each other's half-written versions.
const TIMETABLE_LOCK_CLASS = 0x747462;

interface Content {
  hash: string;
  input: TimetableInput;
}

/** Ids of the contents, inserting (with their stops) those not stored yet. */
async function storeContents(
  tx: Queryable,
  contents: readonly Content[],
): Promise<{ ids: Map<string, number>; inserted: number }> {
  const hashes = contents.map((c) => c.hash);
  const known = await tx.query<{ id: number; h: string }>(
    `SELECT id, encode(content_hash, 'hex') AS h FROM timetables
      WHERE content_hash = ANY (SELECT decode(x, 'hex') FROM unnest($1::text[]) AS x)`,
    [hashes],
  );
  const ids = new Map(known.rows.map((r) => [r.h, r.id]));
  const fresh = contents.filter((c) => !ids.has(c.hash));
  if (fresh.length === 0) return { ids, inserted: 0 };
  const ends = fresh.map((c) => timetableEnds(c.input));
  const inserted = await tx.query<{ id: number; h: string }>(
    `INSERT INTO timetables (content_hash, train_code, all_codes, internal_code, bureau_code,
                             bureau_name, train_department, passenger_department, start_station,
                             end_station, start_offset, end_offset)
     SELECT decode(t.h, 'hex'), t.tc, string_to_array(t.ac, '/'), t.ic, t.bc, t.bn, t.td, t.pd,
            t.ss, t.es, t.so, t.eo
       FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[],
                   $7::text[], $8::text[], $9::text[], $10::text[], $11::int[], $12::int[])
            WITH ORDINALITY AS t(h, tc, ac, ic, bc, bn, td, pd, ss, es, so, eo, n)
      ORDER BY t.n
     ON CONFLICT (content_hash) DO NOTHING
     RETURNING id, encode(content_hash, 'hex') AS h`,
    [
      fresh.map((c) => c.hash),
      fresh.map((c) => c.input.trainCode),
      fresh.map((c) => c.input.allCodes.join('/')),
      fresh.map((c) => c.input.internalCode),
      fresh.map((c) => c.input.bureauCode),
      fresh.map((c) => c.input.bureauName),
      fresh.map((c) => c.input.trainDepartment),
      fresh.map((c) => c.input.passengerDepartment),
      ends.map((e) => e.startStation),
      ends.map((e) => e.endStation),
      ends.map((e) => e.startOffset),
      ends.map((e) => e.endOffset),
    ],
  );
  for (const r of inserted.rows) ids.set(r.h, r.id);
  const stop = {
    id: [] as number[],
    no: [] as number[],
    name: [] as string[],
    arrive: [] as (number | null)[],
    depart: [] as (number | null)[],
    code: [] as (string | null)[],
    wicket: [] as string[],
    platform: [] as (number | null)[],
    distance: [] as (number | null)[],
  };
  const insertedIds = new Set(inserted.rows.map((r) => r.id));
  for (const c of fresh) {
    const id = ids.get(c.hash)!;
    if (!insertedIds.has(id)) continue;
    c.input.stops.forEach((s, i) => {
      stop.id.push(id);
      stop.no.push(i + 1);
      stop.name.push(s.stationName);
      stop.arrive.push(s.arriveOffset);
      stop.depart.push(s.departOffset);
      stop.code.push(s.stationTrainCode);
      stop.wicket.push(s.wicket);
      stop.platform.push(s.platformNo);
      stop.distance.push(s.distance);
    });
  }
  await tx.query(
    `INSERT INTO timetable_stops (timetable_id, station_no, station_name, arrive_offset,
                                  depart_offset, station_train_code, wicket, platform_no, distance)
     SELECT * FROM unnest($1::int[], $2::int[], $3::text[], $4::int[], $5::int[], $6::text[],
                          $7::text[], $8::int[], $9::numeric[])`,
    [
      stop.id,
      stop.no,
      stop.name,
      stop.arrive,
      stop.depart,
      stop.code,
      stop.wicket,
      stop.platform,
      stop.distance,
    ],
  );
  return { ids, inserted: inserted.rowCount };
}

/** Declared versions of the numbers, stored: number -> validFrom -> timetableId. */
async function loadVersions(
  tx: Queryable,
  codes: readonly string[],
): Promise<Map<string, Map<number, number>>> {
  const r = await tx.query<{ train_code: string; valid_from: number; timetable_id: number }>(
    `SELECT train_code, valid_from, timetable_id FROM timetable_versions
      WHERE train_code = ANY ($1::text[])`,
    [codes],
  );
  const out = new Map<string, Map<number, number>>(codes.map((c) => [c, new Map()]));
  for (const row of r.rows) out.get(row.train_code)!.set(row.valid_from, row.timetable_id);
  return out;
}

async function loadCoverage(
  tx: Queryable,
  codes: readonly string[],
): Promise<Map<string, CoverageRow[]>> {
  const r = await tx.query<{
    id: number;
    train_code: string;
    timetable_id: number;
    service_day_start: number;
    service_day_end_exclusive: number | null;
  }>(
    `SELECT id, train_code, timetable_id, service_day_start, service_day_end_exclusive
       FROM timetable_coverage WHERE train_code = ANY ($1::text[])
      ORDER BY train_code, service_day_start`,
    [codes],
  );
  const out = new Map<string, CoverageRow[]>(codes.map((c) => [c, []]));
  for (const row of r.rows) {
    out.get(row.train_code)!.push({
      id: row.id,
      timetableId: row.timetable_id,
      start: row.service_day_start,
      end: row.service_day_end_exclusive,
    });
  }
  return out;
}

interface CoverageWrite {
  deleted: number[];
  updated: CoverageRow[];
  inserted: (CoverageRow & { trainCode: string })[];
}

async function writeCoverage(tx: Queryable, w: CoverageWrite): Promise<void> {
  if (w.deleted.length > 0)
    await tx.query('DELETE FROM timetable_coverage WHERE id = ANY ($1::int[])', [w.deleted]);
  // One open row per number is enforced row by row: close rows before opening others.
  const closing = w.updated.filter((r) => r.end !== null);
  const opening = w.updated.filter((r) => r.end === null);
  for (const rows of [closing, opening]) {
    if (rows.length === 0) continue;
    await tx.query(
      `UPDATE timetable_coverage c
          SET timetable_id = u.tt, service_day_start = u.s, service_day_end_exclusive = u.e
         FROM unnest($1::int[], $2::int[], $3::int[], $4::int[]) AS u(id, tt, s, e)
        WHERE c.id = u.id`,
      [
        rows.map((r) => r.id),
        rows.map((r) => r.timetableId),
        rows.map((r) => r.start),
        rows.map((r) => r.end),
      ],
    );
  }
  if (w.inserted.length > 0) {
    await tx.query(
      `INSERT INTO timetable_coverage (train_code, timetable_id, service_day_start, service_day_end_exclusive)
       SELECT * FROM unnest($1::text[], $2::int[], $3::int[], $4::int[])
        ORDER BY 1, 3`,
      [
        w.inserted.map((r) => r.trainCode),
        w.inserted.map((r) => r.timetableId),
        w.inserted.map((r) => r.start),
        w.inserted.map((r) => r.end),
      ],
    );
  }
}

/**
 * Stores one chunk of a file's valid timetables (in file order) and its rejected lines, in one
 * transaction: contents once by hash (with their stops), each number's declared version, and
 * the coverage rows derived from every declared version of the numbers touched (see
 * coverage-versions.ts for the rule).
 */
export async function storeTimetableChunk(
  db: Db,
  batchId: number,
  file: string,
  timetables: readonly TimetableInput[],
  rejects: readonly RejectedLine[],
): Promise<StoredChunk> {
  return db.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock($1, 0)', [TIMETABLE_LOCK_CLASS]);
    const withHash = timetables.map((input) => ({ input, hash: timetableContentHash(input) }));
    const unique = new Map(withHash.map((c) => [c.hash, c]));
    const { ids, inserted } = await storeContents(tx, [...unique.values()]);

    const codes = [...new Set(timetables.flatMap((t) => t.allCodes))];
    const versions = await loadVersions(tx, codes);
    const declared = new Map<string, TimetableVersion & { trainCode: string }>();
    let changed = 0;
    for (const { input, hash } of withHash) {
      const timetableId = ids.get(hash)!;
      let changes = false;
      for (const code of input.allCodes) {
        const byDay = versions.get(code)!;
        if (byDay.get(input.validFrom) === timetableId) continue;
        byDay.set(input.validFrom, timetableId);
        declared.set(`${code}\u0000${input.validFrom}`, {
          trainCode: code,
          validFrom: input.validFrom,
          timetableId,
        });
        changes = true;
      }
      if (changes) changed++;
    }

    let changedFrom: number | undefined;
    if (declared.size > 0) {
      const rows = [...declared.values()];
      await tx.query(
        `INSERT INTO timetable_versions (train_code, valid_from, timetable_id)
         SELECT * FROM unnest($1::text[], $2::int[], $3::int[])
         ON CONFLICT (train_code, valid_from)
         DO UPDATE SET timetable_id = EXCLUDED.timetable_id, ingested_at = now()`,
        [
          rows.map((r) => r.trainCode),
          rows.map((r) => r.validFrom),
          rows.map((r) => r.timetableId),
        ],
      );
      const touched = [...new Set(rows.map((r) => r.trainCode))].sort();
      const stored = await loadCoverage(tx, touched);
      const write: CoverageWrite = { deleted: [], updated: [], inserted: [] };
      for (const code of touched) {
        const before = stored.get(code)!;
        const derived = deriveCoverage(
          [...versions.get(code)!].map(([validFrom, timetableId]) => ({ validFrom, timetableId })),
        );
        const after = keepCoverageIds(before, derived);
        const c = coverageChanges(before, after);
        write.deleted.push(...c.deleted);
        write.updated.push(...c.updated);
        write.inserted.push(...c.inserted.map((r) => ({ ...r, trainCode: code })));
        const day = firstDifferentDay(before, after);
        if (day !== undefined && (changedFrom === undefined || day < changedFrom))
          changedFrom = day;
      }
      await writeCoverage(tx, write);
      // The built days whose timetables in force may have changed are stale from this commit.
      if (changedFrom !== undefined) await markBuiltDaysStaleFrom(tx, changedFrom, 'timetable');
    }
    await recordRejects(tx, batchId, file, rejects);
    return { newContents: inserted, changed, unchanged: timetables.length - changed, changedFrom };
  });
}
