import { EmutrackError } from '../shared/errors/emutrack-error.js';
import { ymdOfServiceDay } from '../shared/time/service-day.js';

/**
 * What one nightly tick does for the service day D that just ended, described once and followed
 * by both runners (JobQueues.enqueueNightlyFlow on BullMQ, runNightlyInProcess without Redis):
 *
 * 1. the day flow of each of `days`, in order: D-1 again (the sightings after midnight of its
 *    cross-midnight trains came in during D), then D. A day flow is its build, then, if the
 *    build succeeded, its export. The days are independent: one failing does not stop the other.
 * 2. once every day flow has finished, whatever its outcome, refresh-reference-models over the
 *    window ending with `refreshWindowEnd` (D). A failed day is reported (job_runs, the runner's
 *    error) and is retried or replayed on its own; the models need not wait for it.
 */
export interface NightlyPlan {
  serviceDay: number;
  days: readonly number[];
  refreshWindowEnd: number;
}

export function nightlyPlan(serviceDay: number): NightlyPlan {
  return { serviceDay, days: [serviceDay - 1, serviceDay], refreshWindowEnd: serviceDay };
}

/** A nightly run in which some day flows failed (the others and the refresh still ran). */
export class NightlyIncompleteError extends EmutrackError {
  constructor(
    readonly serviceDay: number,
    readonly failures: readonly { serviceDay: number; error: Error }[],
  ) {
    super(
      'nightly_incomplete',
      `nightly of ${ymdOfServiceDay(serviceDay)}: ` +
        failures
          .map((f) => `${ymdOfServiceDay(f.serviceDay)} failed: ${f.error.message}`)
          .join('; ') +
        '; the other days and the reference models ran',
      { cause: failures[0]?.error },
    );
  }
}
