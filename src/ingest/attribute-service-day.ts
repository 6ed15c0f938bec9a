import { serviceDayOf } from '../time/service-day.js';

/**
 * The service day a sighting without an explicit serviceDate belongs to.
 *
 * For now: the Shanghai service day of observedAt. This is the seam for cross-midnight
 * attribution: once timetables exist, a sighting after midnight of a train that left its origin
 * the evening before belongs to the earlier day, and that decision is made here and nowhere else.
 */
export function attributeServiceDay(sighting: {
  observedAt: number;
  trainCodes: readonly string[];
}): number {
  return serviceDayOf(sighting.observedAt);
}
