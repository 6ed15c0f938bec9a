import type { Queryable } from '../../shared/db/db.js';

/** One unit of the register as the fleet lists it. Unknown values are "". */
export interface FleetUnit {
  emuId: number;
  code: string;
  model: string;
  bureau: string;
  trainDepot: string;
  depot: string;
}

/**
 * Every unit of the register that stands on its own (a unit merged into another by a correction
 * is that unit: its codes find it, so it is left out), whether the fleet import described it or
 * a sighting registered it first; ordered by model, bureau, depot, then code (each in the
 * database's byte order, so the order is the same on every server).
 */
export async function readFleet(db: Queryable): Promise<FleetUnit[]> {
  const r = await db.query<FleetUnit>(
    `SELECT e.id AS "emuId", e.code, e.model, e.bureau, e.train_depot AS "trainDepot", e.depot
       FROM emus e
      WHERE NOT EXISTS (SELECT 1 FROM emu_merges m WHERE m.from_emu_id = e.id)
      ORDER BY e.model COLLATE "C", e.bureau COLLATE "C", e.depot COLLATE "C", e.code COLLATE "C"`,
  );
  return r.rows;
}

/** The distinct non-empty values of one field of the units, sorted as the fleet is. */
export function fleetValues(
  units: readonly FleetUnit[],
  field: 'model' | 'bureau' | 'depot',
): string[] {
  const values = new Set<string>();
  for (const unit of units) if (unit[field] !== '') values.add(unit[field]);
  return [...values].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}
