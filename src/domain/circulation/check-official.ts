import type { Db, Queryable } from '../../shared/db/db.js';
import { matchOfficial, RouteIndex, type OfficialCheck } from './match-official.js';
import { NO_EVIDENCE, readSightingEvidence } from './official-evidence.js';
import type { OfficialTrain } from './official-entry.js';
import { currentRunId, readRouteShapes, type RouteShape } from './route-store.js';

/** An inference run as the checks need it: its routes, and its window and minSupport (evidence). */
export interface CheckedRun {
  runId: number;
  routes: readonly RouteShape[];
  windowStart: number;
  windowEnd: number;
  minSupport: number;
}

export interface OfficialCheckSummary {
  checked: number;
  raw: number;
  split: number;
  unmatched: number;
  /** Checked before any inference run existed. */
  unspecified: number;
}

// One lock for every writer of circulation results: an inference run and an import never
// interleave, so each import is checked against the run that is current when it commits, and
// each run re-checks every table imported before it.
const CIRCULATION_LOCK_CLASS = 0x636972;

export async function lockCirculations(tx: Queryable): Promise<void> {
  await tx.query('SELECT pg_advisory_xact_lock($1, 0)', [CIRCULATION_LOCK_CLASS]);
}

/**
 * Checks official tables against a run's routes and the sightings of its window (the daily
 * records as they are now: match-official.ts) and replaces their stored checks and segments: the
 * tables named by entryKeys, or every table that is an EMU circulation. Without a run (none has
 * finished yet) each is stored as 'unspecified'. Call inside the caller's transaction.
 */
export async function checkOfficialCirculations(
  tx: Queryable,
  run: CheckedRun | undefined,
  entryKeys?: readonly string[],
): Promise<OfficialCheckSummary> {
  const rows = await tx.query<{
    entry_key: string;
    written: string[];
    codes: string[];
    node_keys: string[];
    deadheads: boolean[];
  }>(
    `SELECT t.entry_key, array_agg(t.written ORDER BY t.position) AS written,
            array_agg(array_to_string(t.train_codes, '/') ORDER BY t.position) AS codes,
            array_agg(t.node_key ORDER BY t.position) AS node_keys,
            array_agg(t.deadhead ORDER BY t.position) AS deadheads
       FROM official_circulation_trains t
      WHERE $1::text[] IS NULL OR t.entry_key = ANY ($1::text[])
      GROUP BY t.entry_key
      ORDER BY t.entry_key`,
    [entryKeys ?? null],
  );
  const summary: OfficialCheckSummary = {
    checked: 0,
    raw: 0,
    split: 0,
    unmatched: 0,
    unspecified: 0,
  };
  const index = run ? new RouteIndex(run.routes) : undefined;
  const tables = rows.rows.map((r) => ({
    key: r.entry_key,
    trains: r.written.map((written, i): OfficialTrain => ({
      written,
      codes: r.codes[i]!.split('/'),
      nodeKey: r.node_keys[i]!,
      deadhead: r.deadheads[i]!,
    })),
  }));
  // The sightings are asked only about the trains of links no route confirms (one read for all
  // the tables): a first pass without them finds those links.
  let evidence = NO_EVIDENCE;
  if (run && index) {
    const asked = new Set<string>();
    for (const { trains } of tables) {
      const first = matchOfficial(trains, index);
      if (first.confirmedLinks === first.officialLinks) continue;
      for (const t of trains) if (!t.deadhead) for (const c of t.codes) asked.add(c);
    }
    evidence = await readSightingEvidence(
      tx,
      { start: run.windowStart, end: run.windowEnd },
      [...asked],
      run.minSupport,
    );
  }
  const checks: { key: string; check: OfficialCheck }[] = [];
  for (const { key, trains } of tables) {
    const check: OfficialCheck = index
      ? matchOfficial(trains, index, evidence)
      : { state: 'unspecified', officialLinks: 0, confirmedLinks: 0, segments: [] };
    summary.checked++;
    if (check.state === 'raw_official') summary.raw++;
    else if (check.state === 'split_official') summary.split++;
    else if (check.state === 'unmatched_official') summary.unmatched++;
    else summary.unspecified++;
    checks.push({ key, check });
  }
  const keys = checks.map((c) => c.key);
  await tx.query('DELETE FROM official_circulation_segments WHERE entry_key = ANY ($1::text[])', [
    keys,
  ]);
  await tx.query(
    `INSERT INTO official_circulation_checks
       (entry_key, run_id, validation_state, matched_route_id, official_links, confirmed_links)
     SELECT * FROM unnest($1::text[], $2::bigint[], $3::text[], $4::text[], $5::int[], $6::int[])
     ON CONFLICT (entry_key) DO UPDATE
       SET run_id = EXCLUDED.run_id, validation_state = EXCLUDED.validation_state,
           matched_route_id = EXCLUDED.matched_route_id, official_links = EXCLUDED.official_links,
           confirmed_links = EXCLUDED.confirmed_links, checked_at = now()`,
    [
      keys,
      checks.map(() => run?.runId ?? null),
      checks.map((c) => c.check.state),
      checks.map((c) => c.check.matchedRouteId ?? null),
      checks.map((c) => c.check.officialLinks),
      checks.map((c) => c.check.confirmedLinks),
    ],
  );
  const segments = checks.flatMap((c) => c.check.segments.map((s) => ({ key: c.key, ...s })));
  if (segments.length > 0) {
    await tx.query(
      `INSERT INTO official_circulation_segments
         (entry_key, segment_index, segment_count, first_position, last_position, matched_route_id)
       SELECT * FROM unnest($1::text[], $2::int[], $3::int[], $4::int[], $5::int[], $6::text[])`,
      [
        segments.map((s) => s.key),
        segments.map((s) => s.segmentIndex),
        segments.map((s) => s.segmentCount),
        segments.map((s) => s.firstPosition),
        segments.map((s) => s.lastPosition),
        segments.map((s) => s.routeId),
      ],
    );
  }
  return summary;
}

/** The current run as the checks need it, or undefined before the first run. */
async function currentCheckedRun(tx: Queryable): Promise<CheckedRun | undefined> {
  const runId = await currentRunId(tx);
  if (runId === undefined) return undefined;
  const r = await tx.query<{
    window_start_day: number;
    window_end_day: number;
    min_support: number;
  }>('SELECT window_start_day, window_end_day, min_support FROM circulation_runs WHERE id = $1', [
    runId,
  ]);
  const row = r.rows[0]!;
  return {
    runId,
    routes: await readRouteShapes(tx, runId),
    windowStart: row.window_start_day,
    windowEnd: row.window_end_day,
    minSupport: row.min_support,
  };
}

/** Checks the given tables against whatever run is current (used after an import). */
export async function checkOfficialAgainstCurrent(
  tx: Queryable,
  entryKeys: readonly string[],
): Promise<OfficialCheckSummary> {
  return checkOfficialCirculations(tx, await currentCheckedRun(tx), entryKeys);
}

/**
 * Judges again, against the current run, the official tables in force on any of the given
 * service days that lie in that run's window: a rebuild of those days changed the sightings
 * their checks read. Returns undefined when there is nothing to judge (no run, no such day or
 * table). Takes the circulation lock in a transaction of its own.
 */
export async function recheckOfficialForDays(
  db: Db,
  serviceDays: readonly number[],
): Promise<OfficialCheckSummary | undefined> {
  if (serviceDays.length === 0) return undefined;
  return db.transaction(async (tx) => {
    await lockCirculations(tx);
    const run = await currentCheckedRun(tx);
    if (!run) return undefined;
    const days = serviceDays.filter((d) => d >= run.windowStart && d <= run.windowEnd);
    if (days.length === 0) return undefined;
    const tables = await tx.query<{ entry_key: string }>(
      `SELECT c.entry_key FROM official_circulations c
        WHERE c.skip_reason IS NULL
          AND EXISTS (SELECT 1 FROM unnest($1::int[]) AS d
                       WHERE c.running_start <= d AND (c.running_end IS NULL OR c.running_end >= d))`,
      [days],
    );
    if (tables.rows.length === 0) return undefined;
    return checkOfficialCirculations(
      tx,
      run,
      tables.rows.map((t) => t.entry_key),
    );
  });
}
