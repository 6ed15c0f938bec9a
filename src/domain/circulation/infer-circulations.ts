import type { Db } from '../../shared/db/db.js';
import { assertServiceDay, midnightOfServiceDay } from '../../shared/time/service-day.js';
import { chainRoutes } from './chain-routes.js';
import {
  checkOfficialCirculations,
  lockCirculations,
  type OfficialCheckSummary,
} from './check-official.js';
import { keptLinks, resolveInferenceRule, type InferenceRule } from './inference-rule.js';
import { observeLinks } from './observe-links.js';
import { writeRoutes } from './route-store.js';

export interface InferCirculationsOptions extends Partial<InferenceRule> {
  /** The window's last service day. */
  asOf: number;
  /**
   * Called inside the run's transaction once its routes and checks are written, just before the
   * current-run pointer moves (tests use it to look at what readers see meanwhile).
   */
  beforeSwap?: (runId: number) => Promise<void>;
}

export interface InferCirculationsResult {
  runId: number;
  /** The run that was current before this one, if any. */
  previousRunId: number | null;
  windowStart: number;
  windowEnd: number;
  threshold: number;
  minSupport: number;
  runs: number;
  runsOrderedBySighting: number;
  linksSeen: number;
  linksKept: number;
  routes: number;
  loopBreaks: number;
  /** Trains placed in a route. */
  routeNodes: number;
  official: OfficialCheckSummary;
  ms: number;
  /** Where the time went (ms): reading and counting links, chaining, writing, checks, swap. */
  phases: { observe: number; chain: number; write: number; check: number; swap: number };
}

/**
 * Infers circulations from the window's daily records (see InferenceRule for the rule) and
 * replaces the current results atomically: the records are read and the routes chained, then,
 * in one transaction under the circulation lock, the run and its routes are written, every
 * official table is checked against them, and the current-run pointer moves. Readers follow the pointer, so they see the old run until the commit.
 * The run before the current one is kept (a reader may be half-way through it); older ones go.
 */
export async function inferCirculations(
  db: Db,
  options: InferCirculationsOptions,
): Promise<InferCirculationsResult> {
  assertServiceDay(options.asOf);
  const rule = resolveInferenceRule(options);
  const started = performance.now();
  const windowEnd = options.asOf;
  const windowStart = windowEnd - rule.windowDays + 1;
  let mark = started;
  const lap = () => {
    const now = performance.now();
    const ms = Math.round(now - mark);
    mark = now;
    return ms;
  };
  // Reading and chaining need no lock: a run's routes come from the records as it read them.
  const observed = await observeLinks(db, windowStart, windowEnd, rule.minSupport);
  const observe = lap();
  const kept = keptLinks(observed.links, rule);
  const routes = chainRoutes(kept);
  const chain = lap();
  return db.transaction(async (tx) => {
    await lockCirculations(tx);
    const loopBreaks = routes.filter((r) => r.containsLoopBreak).length;
    const routeNodes = routes.reduce((n, r) => n + r.nodes.length, 0);
    const run = await tx.query<{ id: number }>(
      `INSERT INTO circulation_runs
         (window_start_day, window_end_day, window_start_at, window_end_at, threshold, min_support,
          runs, runs_ordered_by_sighting, links_seen, links_kept, routes, loop_breaks)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) RETURNING id`,
      [
        windowStart,
        windowEnd,
        midnightOfServiceDay(windowStart),
        midnightOfServiceDay(windowEnd + 1),
        rule.threshold,
        rule.minSupport,
        observed.runs,
        observed.runsOrderedBySighting,
        observed.links.length,
        kept.length,
        routes.length,
        loopBreaks,
      ],
    );
    const runId = run.rows[0]!.id;
    await writeRoutes(tx, runId, routes);
    const write = lap();
    const official = await checkOfficialCirculations(tx, {
      runId,
      routes,
      windowStart,
      windowEnd,
      minSupport: rule.minSupport,
    });
    const check = lap();
    await options.beforeSwap?.(runId);
    lap();
    const previous = await tx.query<{ run_id: number }>(
      'SELECT run_id FROM circulation_current FOR UPDATE',
    );
    const previousRunId = previous.rows[0]?.run_id ?? null;
    await tx.query(
      `INSERT INTO circulation_current (singleton, run_id) VALUES (true, $1)
       ON CONFLICT (singleton) DO UPDATE SET run_id = EXCLUDED.run_id, swapped_at = now()`,
      [runId],
    );
    await tx.query('DELETE FROM circulation_runs WHERE id <> $1 AND id <> $2', [
      runId,
      previousRunId ?? runId,
    ]);
    await tx.query('UPDATE circulation_runs SET finished_at = now() WHERE id = $1', [runId]);
    const swap = lap();
    return {
      runId,
      previousRunId,
      windowStart,
      windowEnd,
      threshold: rule.threshold,
      minSupport: rule.minSupport,
      runs: observed.runs,
      runsOrderedBySighting: observed.runsOrderedBySighting,
      linksSeen: observed.links.length,
      linksKept: kept.length,
      routes: routes.length,
      loopBreaks,
      routeNodes,
      official,
      ms: Math.round(performance.now() - started),
      phases: { observe, chain, write, check, swap },
    };
  });
}
