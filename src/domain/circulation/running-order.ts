/** Seconds in a day. */
export const DAY = 86_400;

/** A timetable's start and end, in seconds from its service day's midnight (end may pass 24:00). */
export interface RunTimes {
  start: number;
  end: number;
}

/**
 * Where a daily record stands among its unit's runs of its service day, in seconds from the
 * day's midnight: its timetable's start, else the time of day of its first sighting. A record
 * whose sightings all fall in the small hours before its timetable's after-midnight arrival is
 * the evening train of the day before, seen after midnight: it is placed a day early (a negative
 * time, first of its day), so that it follows that evening train (see runningSequence).
 *
 * The inference and the sightings evidence of the official checks both order runs by this, so
 * that a step the checks read is a step the inference counted.
 */
export function runningStart(
  midnight: number,
  firstObservedAt: number,
  lastObservedAt: number,
  timetable: RunTimes | undefined,
): number {
  if (!timetable) return firstObservedAt - midnight;
  return timetable.end > DAY && lastObservedAt - midnight < timetable.end - DAY
    ? timetable.start - DAY
    : timetable.start;
}

/** A run placed in running order: its service day and its runningStart. */
export interface PlacedRun {
  day: number;
  at: number;
}

/**
 * One unit's runs in running order (by day, then runningStart, then `tie`), without a run that
 * repeats the unit's last run the evening before: that train seen after midnight (its late
 * sightings attributed to the next day), not a new run. Sorts `runs` in place.
 */
export function runningSequence<T extends PlacedRun>(
  runs: T[],
  sameTrain: (a: T, b: T) => boolean,
  tie: (a: T, b: T) => number,
): T[] {
  runs.sort((x, y) => x.day - y.day || x.at - y.at || tie(x, y));
  const seq: T[] = [];
  for (const r of runs) {
    const prev = seq[seq.length - 1];
    if (prev && sameTrain(prev, r) && prev.day === r.day - 1) continue;
    seq.push(r);
  }
  return seq;
}
