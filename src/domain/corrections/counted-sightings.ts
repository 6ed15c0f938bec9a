/**
 * How readers of `observations` see them through the corrections in force (migration 020):
 * observations stay append-only, and whatever counts sightings (the day build, the pairs the
 * circulation inference learns) reads them through these fragments instead of changing them.
 */

/** True for an observation (alias `o`) no retraction in force takes out. */
export function notRetractedSql(o: string): string {
  return `NOT EXISTS (SELECT 1 FROM retracted_observations r WHERE r.observation_id = ${o}.id)`;
}

/**
 * The unit an observation (alias `o`) counts for: its own, or the unit it was merged into
 * (needs `LEFT JOIN emu_merges ${m} ON ${m}.from_emu_id = ${o}.emu_id`).
 */
export function countedEmuIdSql(o: string, m: string): string {
  return `coalesce(${m}.target_emu_id, ${o}.emu_id)`;
}

/**
 * What a day's build depends on besides its observations: the retractions of sightings stored
 * for it or the next day (which may count for it across midnight), and every merge in force. An
 * SQL expression of the day ($n): null when there is none.
 */
export function correctionsDigestSql(day: string): string {
  return `(SELECT md5(coalesce((SELECT string_agg(observation_id::text, ',' ORDER BY observation_id)
                                   FROM retracted_observations
                                  WHERE service_day BETWEEN ${day} AND ${day} + 1), '')
                      || ';' ||
                      coalesce((SELECT string_agg(from_emu_id || '>' || target_emu_id, ','
                                                  ORDER BY from_emu_id)
                                   FROM emu_merges), '')))`;
}
