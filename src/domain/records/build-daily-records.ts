import type { Db, Queryable } from '../../shared/db/db.js';
import { assertServiceDay } from '../../shared/time/service-day.js';
import { coverageInForceSql } from '../timetables/timetable-lookup.js';
import { dayBuildInputs, saveDayBuildState } from './day-build-inputs.js';
import { daySightingsSql, movedSightings, type CorrectionsInForce } from './day-sightings.js';
import { clearStaleDay, readStaleMark } from './stale-days.js';

/**
 * How sightings of one train on one service day become records. Defaults in brackets.
 *
 * For each (service day, train number), every EMU sighted on it is a candidate with a support
 * count: the number of distinct observations naming it (duplicates were dropped on ingest).
 * Let `top` be the highest support among the candidates. A candidate is kept when
 *   - its support equals `top`, or
 *   - its support is at least `minDissentSupport` [2] and at least top / `dissentRatio` [3];
 * and, of those, at most `maxUnits` [2] are kept (a coupled run is two units), ranked by
 * support, then number of distinct sources, then earliest sighting, then emuId.
 * Each sighting weighs its source's trust (`emutrack source add --trust W`; a source not in the
 * sources table, a file's, weighs 1): on a day where some source weighs other than 1, `top`,
 * the comparisons with it and the first rank use the candidates' weighted support (the sum of
 * their sightings' weights) instead, then the plain support; `minDissentSupport` and
 * `confirmMinSupport` still count sightings. A day where every source weighs 1 is ranked as
 * before, by the same statement.
 * So one dissenting report against several confirmations is outvoted (5 vs 1), a coupled run's
 * second unit seen less often still counts (5 vs 2), and a lone report stands when nothing
 * contradicts it. Losing observations stay in `observations`; nothing is deleted there.
 *
 * Status bits (compatibility.md): 0x01 (confirmed) when support >= `confirmMinSupport` [2].
 * The rest come from what the sightings of the record (its train number and EMU that day) say,
 * and when they disagree the majority of those that say anything wins (a sighting that does not
 * state a field does not vote; a tie decides nothing):
 * - position: the most stated of single, first and second (strictly more votes than each other).
 * - formation (mask 0x06): when the train keeps two records that day and both are confirmed (a
 *   coupled run): 0x04 for the first unit and 0x06 for the second; when only one of the two has
 *   a position, first or second, the other is the other unit; when both or neither say, or both
 *   say the same, 0x02 (coupled, position unknown) for both. Otherwise (one record, or two
 *   unconfirmed ones: a conflict the data cannot settle, not a coupling) 0x04 or 0x06 when the
 *   record's position is first or second (the partner went unseen), else 0x00.
 * - 0x08 (fault replacement) and 0x10 (hot spare): when more of the sightings stating `fault`
 *   (`spare`) say true than false.
 */
export interface ConflictRule {
  /** Support a non-leading candidate needs at least. Default 2. */
  minDissentSupport: number;
  /** A non-leading candidate needs support >= top / dissentRatio. Default 3. */
  dissentRatio: number;
  /** Most units one train can have on one day. Default 2. */
  maxUnits: number;
  /** Support at which a record is confirmed (status bit 0x01). Default 2. */
  confirmMinSupport: number;
}

export const DEFAULT_CONFLICT_RULE: ConflictRule = {
  minDissentSupport: 2,
  dissentRatio: 3,
  maxUnits: 2,
  confirmMinSupport: 2,
};

export interface BuildResult {
  serviceDay: number;
  /** Records of the day after the build. */
  records: number;
  inserted: number;
  updated: number;
  deleted: number;
  observations: number;
  /** True when the day's inputs had not changed since its last build and nothing was written. */
  skipped: boolean;
  /** The day's version after the build: bumped in the build's transaction when records changed. */
  version: number;
  /**
   * Whether the day's stale mark (stale-days.ts) was cleared by this build: false when the day
   * was not stale, or was marked again after the build read its mark (it stays stale).
   */
  staleCleared: boolean;
  /**
   * Milliseconds spent in each phase, in order: lock, moved, inputs, then for a day that had
   * records wanted, delete, update, insert, and for one that had none wanted+insert (one
   * statement), then save. A skipped build stops after inputs.
   */
  phases: Record<string, number>;
}

export interface BuildOptions {
  /** Build even when the day's inputs did not change since its last build. Default false. */
  force?: boolean;
  /**
   * Why the day is built, for the change feed: set in the build's transaction as the setting
   * `emutrack.change_cause` (transaction-local), which triggers on daily_records can read.
   * 'late-data' or 'correction' for the rebuild of a stale day (stale-days.ts). Default 'build'.
   */
  cause?: BuildCause;
}

/** Why a day is built (see BuildOptions.cause). */
export type BuildCause = 'build' | 'late-data' | 'correction';

export const STATUS_CONFIRMED = 0x01;
export const STATUS_COUPLED_UNKNOWN_POSITION = 0x02;
export const STATUS_COUPLED_FIRST = 0x04;
export const STATUS_COUPLED_SECOND = 0x06;
export const STATUS_FAULT = 0x08;
export const STATUS_SPARE = 0x10;

/**
 * What a candidate's sightings say, as the differences the rule compares (aggregates over
 * `sighting`): first - single and second - single (so first > second is the one greater than the
 * other), and for fault and spare the sightings saying true less those saying false. A sighting
 * that does not state a field adds 0. Four sums instead of seven filtered counts: on a day's
 * 60,000 sightings each aggregate is a call per row.
 */
const SAID_VOTES = `sum(CASE position WHEN 'first' THEN 1 WHEN 'single' THEN -1 ELSE 0 END)::int AS first_vote,
           sum(CASE position WHEN 'second' THEN 1 WHEN 'single' THEN -1 ELSE 0 END)::int AS second_vote,
           sum(CASE WHEN fault THEN 1 WHEN NOT fault THEN -1 ELSE 0 END)::int AS fault_vote,
           sum(CASE WHEN spare THEN 1 WHEN NOT spare THEN -1 ELSE 0 END)::int AS spare_vote`;

/**
 * A candidate's votes (SAID_VOTES, alias `c`) as the three narrow columns ranking and status
 * carry: is_first / is_second, 1 when that position is strictly the most stated, and said_bits,
 * the fault and spare bits.
 */
const SAID_COLUMNS = `(c.first_vote > 0 AND c.first_vote > c.second_vote)::int AS is_first,
           (c.second_vote > 0 AND c.second_vote > c.first_vote)::int AS is_second,
           (CASE WHEN c.fault_vote > 0 THEN ${STATUS_FAULT} ELSE 0 END)
             | (CASE WHEN c.spare_vote > 0 THEN ${STATUS_SPARE} ELSE 0 END) AS said_bits`;

/**
 * The status bits of a kept record `k` (the rule above). `k.position`: 1 first, 2 second, 0
 * anything else; window `t` is the train's kept records.
 */
const STATUS_SQL = `(CASE WHEN k.support >= $5 THEN ${STATUS_CONFIRMED} ELSE 0 END)
         | (CASE WHEN count(*) OVER t > 1 AND min(k.support) OVER t >= $5 THEN
              CASE WHEN sum(k.is_first) OVER t = 1 AND sum(k.is_second) OVER t = 1
                     THEN CASE WHEN k.is_first = 1 THEN ${STATUS_COUPLED_FIRST} ELSE ${STATUS_COUPLED_SECOND} END
                   WHEN sum(k.is_first) OVER t = 1 AND sum(k.is_second) OVER t = 0
                     THEN CASE WHEN k.is_first = 1 THEN ${STATUS_COUPLED_FIRST} ELSE ${STATUS_COUPLED_SECOND} END
                   WHEN sum(k.is_second) OVER t = 1 AND sum(k.is_first) OVER t = 0
                     THEN CASE WHEN k.is_second = 1 THEN ${STATUS_COUPLED_SECOND} ELSE ${STATUS_COUPLED_FIRST} END
                   ELSE ${STATUS_COUPLED_UNKNOWN_POSITION} END
            WHEN k.is_first = 1 THEN ${STATUS_COUPLED_FIRST}
            WHEN k.is_second = 1 THEN ${STATUS_COUPLED_SECOND}
            ELSE 0 END)
         | k.said_bits`;

// Lock class for per-day advisory locks: two builds of one day queue instead of interleaving.
const BUILD_LOCK_CLASS = 0x656d75;

/**
 * Train order (prefix, then number: G9 before G10, and numbers without a prefix first) as one
 * sort key of byte order: the prefix, the number of digits as a character, then the train
 * number. Train numbers are a prefix of one or two letters (DJ), or none, and 1-5 digits
 * (normalised at ingest, train-code.ts), so this is the order of (substring '^[A-Z]*',
 * substring '[0-9]+$'::int) on every number there is (a digit character sorts before any letter,
 * so D9999 comes before DJ1), and one key that nearly always decides a comparison in its
 * abbreviated form sorts a day's records about four times faster than the two regular
 * expressions and their three keys.
 */
const trainOrderKey = (code: string) =>
  `(CASE WHEN substr(${code}, 2, 1) COLLATE "C" >= 'A'
           THEN left(${code}, 2) || chr(46 + length(${code}))
         WHEN ${code} COLLATE "C" >= 'A' THEN left(${code}, 1) || chr(47 + length(${code}))
         ELSE chr(48 + length(${code})) END || ${code}) COLLATE "C"`;

/**
 * Up to this many distinct sources in a day's sightings, a candidate's sources are found as a
 * set of bits (see wantedSql); past it, by an ordered aggregate per candidate. Each candidate's
 * bits become its array through one CASE per source, so the bound keeps that list short.
 */
const MAX_SOURCE_BITS = 16;

/**
 * The conflict rule over a day's sightings: the records the day should have (train_code,
 * emu_id, support, sources, first_observed_at, last_observed_at, status, timetable_id), and
 * each one's train order key (train_order, trainOrderKey: what new ids follow, computed once).
 * $1 day, $2-$5 the rule, $6 and $7 the sightings moved out and in (day-sightings.ts), and, with
 * `sources` (a number, at most MAX_SOURCE_BITS), $8 onwards the distinct sources of the day's
 * sightings one by one, in order (dayBuildInputs). `corrections` says which corrections the
 * day's sightings are read through (daySightingsSql).
 *
 * A candidate's sources (distinct, in order) are what array_agg(DISTINCT source ORDER BY source)
 * gives, but that aggregate sorts every candidate's sources apart (a sort set up and torn down
 * 12,000 times a day) and keeps the grouping from hashing. With `sources` each sighting sets
 * the bit of its source's place among them instead (a CASE over the sources as parameters: one
 * text comparison per source, where array_position reads an array for every sighting), the
 * candidates group with plain aggregates (count, bit_or, min, max, sum), and each candidate's
 * bits become its array in that order (each set bit's source, the others left out) in the same
 * pass: no second read of the candidates to find their distinct sets.
 * Each statement reads its own snapshot, so a sighting committed after the sources were read
 * may bring one they lack: it sets the 64th bit (the sign), and such a candidate's sources are
 * read from its sightings instead.
 *
 * Ranking, keeping and status carry narrow rows: each candidate's votes become three small
 * columns (SAID_COLUMNS) before the rows are sorted, not seven counts sorted and windowed along.
 * The leading score of a train is the first of its ranked candidates (the ranking orders by the
 * score first), so one window gives both the rank and the lead.
 */
function wantedSql(
  sources: number | null,
  weighted: boolean,
  corrections: CorrectionsInForce,
): string {
  const sightings = daySightingsSql(6, 7, corrections);
  // Weights (a day with a source whose trust is not 1): the two parameters after the sources,
  // the weighted sources' names and their trusts; any other source weighs 1.
  const w = 8 + (sources ?? 0);
  const weightColumn = weighted
    ? ` sum(coalesce(($${w + 1}::float8[])[array_position($${w}::text[], source)], 1))::float8 AS weight,`
    : '';
  // What a candidate is ranked and kept by: its support, or its support weighted by trust.
  const score = weighted ? 'weight' : 'support';
  // Each of the day's sources (parameter $8 + i) and its bit, as the grouping sets it and the
  // sources array reads it back.
  const daySources = Array.from({ length: sources ?? 0 }, (_, i) => ({
    param: `$${8 + i}`,
    bit: `${(1n << BigInt(i)).toString()}::bigint`,
  }));
  const sourceBit = daySources.map((s) => `WHEN ${s.param} THEN ${s.bit}`).join(' ');
  const sourceArray = daySources
    .map((s) => `CASE WHEN c.source_bits & ${s.bit} <> 0 THEN ${s.param} END`)
    .join(', ');
  const candidate =
    sources !== null
      ? `candidate AS (
    SELECT train_code, emu_id, count(*)::int AS support,${weightColumn}
           bit_or(CASE source ${sourceBit} ELSE '-9223372036854775808'::bigint END) AS source_bits,
           min(observed_at) AS first_observed_at, max(observed_at) AS last_observed_at,
           ${SAID_VOTES}
      FROM sighting
     GROUP BY train_code, emu_id
  ), with_sources AS (
    SELECT c.train_code, ${trainOrderKey('c.train_code')} AS train_order, c.emu_id, c.support,${weighted ? ' c.weight,' : ''}
           CASE WHEN c.source_bits >= 0 THEN array_remove(ARRAY[${sourceArray}]::text[], NULL)
                ELSE ARRAY(SELECT DISTINCT u.source FROM ${sightings} AS u
                            WHERE u.emu_id = c.emu_id AND c.train_code = ANY (u.train_codes COLLATE "C")
                            ORDER BY u.source) END AS sources,
           c.first_observed_at, c.last_observed_at, ${SAID_COLUMNS}
      FROM candidate c
  )`
      : `with_sources AS (
    SELECT c.train_code, ${trainOrderKey('c.train_code')} AS train_order, c.emu_id, c.support,
           ${weighted ? 'c.weight, ' : ''}c.sources, c.first_observed_at, c.last_observed_at, ${SAID_COLUMNS}
      FROM (SELECT train_code, emu_id, count(*)::int AS support,${weightColumn}
                   array_agg(DISTINCT source ORDER BY source) AS sources,
                   min(observed_at) AS first_observed_at, max(observed_at) AS last_observed_at,
                   ${SAID_VOTES}
              FROM sighting
             GROUP BY train_code, emu_id) AS c
  )`;
  return `
  WITH sighting AS (
    -- Grouped and ranked by byte order ("C"): the same groups, and sorts with abbreviated keys.
    SELECT unnest(s.train_codes) COLLATE "C" AS train_code, s.emu_id, s.source, s.observed_at,
           s.position, s.fault, s.spare
      FROM ${sightings} AS s
  ), ${candidate}, ranked AS (
    SELECT c.*,
           first_value(${score}) OVER r AS top,
           row_number() OVER r AS rank
      FROM with_sources c
    WINDOW r AS (PARTITION BY train_order
                 ORDER BY ${weighted ? 'weight DESC, ' : ''}support DESC, cardinality(sources) DESC,
                          first_observed_at, emu_id)
  ), kept AS (
    SELECT *
      FROM ranked
     WHERE rank <= $4
       AND (${score} = top OR (support >= $2 AND ${score} * $3 >= top))
  ), rule AS (
    -- Both windows partition by the train order key, so one sort serves both; the timetables
    -- join last, by hash, instead of by a merge join that sorted the day's coverage rows.
    SELECT k.train_code, k.train_order, k.emu_id, k.support, k.sources, k.first_observed_at,
           k.last_observed_at, ${STATUS_SQL} AS status
      FROM kept k
    WINDOW t AS (PARTITION BY k.train_order)
  )
  SELECT r.train_code, r.emu_id, r.support, r.sources, r.first_observed_at, r.last_observed_at,
         r.status, f.timetable_id, r.train_order
    FROM rule r
    LEFT JOIN timetable_coverage f ON f.train_code = r.train_code AND ${coverageInForceSql('f', '$1::int')}`;
}

/** wantedSql by its arguments: a few texts, made once each. */
const wantedSqls = new Map<string, string>();
function selectWanted(
  sources: number | null,
  weighted: boolean,
  corrections: CorrectionsInForce,
): string {
  const key = `${sources ?? 'aggregated'} ${weighted} ${corrections.retractions} ${corrections.merges}`;
  let sql = wantedSqls.get(key);
  if (sql === undefined) {
    sql = wantedSql(sources, weighted, corrections);
    wantedSqls.set(key, sql);
  }
  return sql;
}

/**
 * Builds (or rebuilds) the daily records of one service day from its sightings, in one
 * transaction. The sightings are those day-sightings.ts attributes to the day (cross-midnight
 * trains: a sighting after midnight counts for the day the train left). Each record gets the
 * timetable in force for its train number on the day (timetable_id, null when none is), so a
 * rebuild after new timetables fills or changes it. Ids are stable: a key (train, EMU) that is
 * still supported keeps its id and row, rows change only where their values did, new keys get
 * new ids (assigned in train order), and keys no longer supported are removed. Running it twice
 * changes nothing the second time.
 *
 * A day whose inputs (day-build-inputs.ts: its sightings, those moved across its midnights, the
 * timetables in force, the rule) are those of its last build, and whose records still number
 * what that build left, is skipped: nothing is written and its version stays. `force` builds it anyway (an unchanged result still keeps the version).
 */
export async function buildDailyRecords(
  db: Db,
  serviceDay: number,
  rule: Partial<ConflictRule> = {},
  options: BuildOptions = {},
): Promise<BuildResult> {
  assertServiceDay(serviceDay);
  const r = { ...DEFAULT_CONFLICT_RULE, ...rule };
  return db.transaction((tx) => build(tx));

  async function build(tx: Queryable): Promise<BuildResult> {
    const phases: Record<string, number> = {};
    let mark = performance.now();
    const phase = (name: string) => {
      const now = performance.now();
      phases[name] = now - mark;
      mark = now;
    };
    // The cause is set with the lock (one round trip), for the whole transaction, and so are the
    // rule's settings: the planner overestimates the unnested sightings tenfold and would
    // JIT-compile a query that runs in a fraction of the compile time; a day's candidates sort
    // in memory.
    await tx.query(
      `SELECT pg_advisory_xact_lock($1, $2), set_config('emutrack.change_cause', $3, true),
              set_config('jit', 'off', true), set_config('work_mem', '64MB', true)`,
      [BUILD_LOCK_CLASS, serviceDay, options.cause ?? 'build'],
    );
    // The day's stale mark, read before any input: every sighting whose mark is at most this
    // one committed before this read (mark and sighting commit together), so the reads below
    // see it, and the mark may be cleared; a later mark keeps the day stale.
    const staleMark = await readStaleMark(tx, serviceDay);
    phase('lock');
    const clearStale = async () =>
      staleMark === null ? false : clearStaleDay(tx, serviceDay, staleMark);
    // A statement apart from the build's own: its two small sets of ids are parameters of the
    // write. A sighting stored between the two counts where it was stored until the next build.
    const moved = await movedSightings(tx, serviceDay);
    phase('moved');
    // The records as they stand count too: a day whose records were changed by anything but a
    // build (restored, deleted by hand) is built again, not skipped.
    const {
      inputs,
      stored,
      sources,
      weights,
      records: before,
      corrections,
      state,
    } = await dayBuildInputs(tx, serviceDay, moved, r);
    phase('inputs');
    const observations = stored - moved.out.length + moved.in.length;
    if (!options.force && state?.inputs === `${inputs} ${before}`) {
      return {
        serviceDay,
        records: before,
        inserted: 0,
        updated: 0,
        deleted: 0,
        observations,
        skipped: true,
        version: state.version,
        staleCleared: await clearStale(),
        phases,
      };
    }
    // A day with no source at all (nothing to group) takes the aggregate: a CASE needs a branch.
    const sourceBits = sources.length > 0 && sources.length <= MAX_SOURCE_BITS;
    // Every source of the day weighs 1 (the common case): the rule's text is the unweighted one.
    const weighted = weights.names.length > 0;
    const wanted = selectWanted(sourceBits ? sources.length : null, weighted, corrections);
    const params: unknown[] = [
      serviceDay,
      r.minDissentSupport,
      r.dissentRatio,
      r.maxUnits,
      r.confirmMinSupport,
      moved.out,
      moved.in,
    ];
    if (sourceBits) params.push(...sources);
    if (weighted) params.push(weights.names, weights.trusts);
    // A day without records (its first build) has nothing to delete or update: the rule's rows
    // go straight in, in one statement with no temporary table.
    const written =
      before === 0
        ? await insertAll(tx, wanted, params, phase)
        : await rewrite(tx, serviceDay, wanted, params, phase);
    const changed = written.deleted + written.updated + written.inserted > 0;
    const version = await saveDayBuildState(
      tx,
      serviceDay,
      `${inputs} ${written.records}`,
      changed,
    );
    const staleCleared = await clearStale();
    phase('save');
    return { serviceDay, ...written, observations, skipped: false, version, staleCleared, phases };
  }
}

interface Written {
  inserted: number;
  updated: number;
  deleted: number;
  /** Records of the day after the writes. */
  records: number;
}

/**
 * Inserts the rows of `from` (rule rows, aliased w) into day $1, those meeting `where`, in train
 * order, so that new ids follow it: the one INSERT of a first build and of a rebuild's new keys.
 */
function insertRecordsSql(from: string, where?: string): string {
  const filter = where ? `WHERE ${where}` : '';
  return `INSERT INTO daily_records (service_day, train_code, emu_id, support, sources,
                                first_observed_at, last_observed_at, status, timetable_id)
     SELECT $1, w.train_code, w.emu_id, w.support, w.sources, w.first_observed_at,
            w.last_observed_at, w.status, w.timetable_id
       FROM ${from} AS w ${filter}
      ORDER BY w.train_order, w.emu_id`;
}

/** The records of a day that had none: the rule's rows inserted in train order (new ids). */
async function insertAll(
  tx: Queryable,
  wanted: string,
  params: unknown[],
  phase: (name: string) => void,
): Promise<Written> {
  const inserted = await tx.query(insertRecordsSql(`(${wanted})`), params);
  phase('wanted+insert');
  const n = inserted.rowCount;
  return { inserted: n, updated: 0, deleted: 0, records: n };
}

/**
 * The records of a day that has some: the rule's rows into a temporary table, then the
 * day's records no longer wanted deleted, those whose values changed updated, and new keys
 * inserted in train order (new ids); rows that did not change are not written.
 */
async function rewrite(
  tx: Queryable,
  serviceDay: number,
  wanted: string,
  params: unknown[],
  phase: (name: string) => void,
): Promise<Written> {
  await tx.query(
    `CREATE TEMP TABLE wanted_records (
       train_code text, emu_id integer, support integer, sources text[],
       first_observed_at bigint, last_observed_at bigint, status integer,
       timetable_id integer, train_order text COLLATE "C"
     ) ON COMMIT DROP`,
  );
  await tx.query(`INSERT INTO wanted_records ${wanted}`, params);
  phase('wanted');
  const deleted = await tx.query(
    `DELETE FROM daily_records d
      WHERE d.service_day = $1
        AND NOT EXISTS (SELECT 1 FROM wanted_records w WHERE w.train_code = d.train_code AND w.emu_id = d.emu_id)`,
    [serviceDay],
  );
  phase('delete');
  const updated = await tx.query(
    `UPDATE daily_records d
        SET support = w.support, sources = w.sources, first_observed_at = w.first_observed_at,
            last_observed_at = w.last_observed_at, status = w.status,
            timetable_id = w.timetable_id, built_at = now()
       FROM wanted_records w
      WHERE d.service_day = $1 AND d.train_code = w.train_code AND d.emu_id = w.emu_id
        AND (d.support, d.sources, d.first_observed_at, d.last_observed_at, d.status, d.timetable_id)
            IS DISTINCT FROM (w.support, w.sources, w.first_observed_at, w.last_observed_at, w.status,
                              w.timetable_id)`,
    [serviceDay],
  );
  phase('update');
  const inserted = await tx.query(
    insertRecordsSql(
      'wanted_records',
      `NOT EXISTS (SELECT 1 FROM daily_records d
                    WHERE d.service_day = $1 AND d.train_code = w.train_code AND d.emu_id = w.emu_id)`,
    ),
    [serviceDay],
  );
  phase('insert');
  const count = await tx.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM daily_records WHERE service_day = $1',
    [serviceDay],
  );
  return {
    inserted: inserted.rowCount,
    updated: updated.rowCount,
    deleted: deleted.rowCount,
    records: count.rows[0]!.n,
  };
}
