import type { AppContext } from '../shared/app/app-context.js';
import { listStaleDays, staleDueAt } from '../domain/records/stale-days.js';
import { ymdOfServiceDay } from '../shared/time/service-day.js';

/**
 * The stale-days part of `emutrack status`: each day whose records wait for a rebuild, why, and
 * when the worker will rebuild it (quiet for STALE_REBUILD_DELAY_MS, or stale for
 * STALE_REBUILD_MAX_WAIT_MS: docs/stale-days-and-caching.md). "due" means the worker should be
 * at it now; a day due for long means no worker is running or its builds fail.
 */
export async function printStaleDays(
  ctx: AppContext,
  out: (line: string) => void,
  nowMs?: number,
): Promise<void> {
  const days = await listStaleDays(ctx.db);
  if (days.length === 0) {
    out('stale days: none');
    return;
  }
  // The marks are stamped by the database's clock, and the worker decides what is due on it:
  // "in N s" is counted on the same clock, whatever this machine's says.
  nowMs ??= (await ctx.db.query<{ now: Date }>('SELECT now() AS now')).rows[0]!.now.getTime();
  const timing = {
    delayMs: ctx.config.STALE_REBUILD_DELAY_MS,
    maxWaitMs: ctx.config.STALE_REBUILD_MAX_WAIT_MS,
  };
  out(
    `stale days (${days.length}; rebuilt by the worker once quiet for ${timing.delayMs / 1000} s, at most ${timing.maxWaitMs / 1000} s after the first mark):`,
  );
  for (const day of days) {
    const due = staleDueAt(day, timing).getTime();
    const when =
      due <= nowMs
        ? `due since ${new Date(due).toISOString()}`
        : `rebuild at ${new Date(due).toISOString()} (in ${Math.ceil((due - nowMs) / 1000)} s)`;
    out(
      `  ${ymdOfServiceDay(day.serviceDay)}  ${day.causes.join(',').padEnd(20)} stale since ${day.firstMarkedAt.toISOString()}, ${when}`,
    );
  }
}
