import type { Queryable } from '../../../shared/db/db.js';
import { staleDaysSummary } from '../../../domain/records/stale-days.js';
import type { StoredFamily } from './stored-metrics.js';

/**
 * Stale days as the worker sees them (stale_days): how many wait for their rebuild and how long
 * the oldest has waited. A healthy worker keeps the age under STALE_REBUILD_MAX_WAIT_MS plus a
 * build; an age that keeps growing means no worker runs or the day's builds fail
 * (docs/stale-days-and-caching.md says what to alert on).
 */
export async function staleDaysFamilies(db: Queryable): Promise<StoredFamily[]> {
  const { count, oldestAgeSeconds } = await staleDaysSummary(db);
  return [
    {
      name: 'emutrack_stale_days',
      help: 'Service days whose records wait for a rebuild (late sightings, corrections, timetables).',
      type: 'gauge',
      values: [{ labels: {}, value: count }],
    },
    {
      name: 'emutrack_stale_day_oldest_age_seconds',
      help: 'Seconds since the oldest stale day was first marked (0 when none is stale).',
      type: 'gauge',
      values: [{ labels: {}, value: oldestAgeSeconds }],
    },
  ];
}
