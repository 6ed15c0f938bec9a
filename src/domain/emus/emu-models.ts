import type { Queryable } from '../../shared/db/db.js';

/** A unit as a page names it: its canonical code and its model ("" when the fleet does not say). */
export interface EmuModel {
  code: string;
  model: string;
}

/** The canonical code and model of each unit of `emuIds` (one query; unknown ids left out). */
export async function readEmuModels(
  db: Queryable,
  emuIds: Iterable<number>,
): Promise<Map<number, EmuModel>> {
  const ids = [...new Set(emuIds)];
  const out = new Map<number, EmuModel>();
  if (ids.length === 0) return out;
  const r = await db.query<{ id: number; code: string; model: string }>(
    'SELECT id, code, model FROM emus WHERE id = ANY ($1::int[])',
    [ids],
  );
  for (const row of r.rows) out.set(row.id, { code: row.code, model: row.model });
  return out;
}
