import type { Queryable } from '../../shared/db/db.js';

/** What a listing shows of a unit beside its code: its model and where it belongs. */
export interface EmuFacts {
  code: string;
  model: string;
  bureau: string;
  depot: string;
}

/**
 * The codes, models, bureaus and depots of the given units (one query), by emuId; units not
 * registered are left out. These change with the register (data version 'emus'), so a caller
 * that keeps what it made of them keeps it under that version.
 */
export async function readEmuFacts(
  db: Queryable,
  emuIds: Iterable<number>,
): Promise<Map<number, EmuFacts>> {
  const ids = [...new Set(emuIds)];
  const out = new Map<number, EmuFacts>();
  if (ids.length === 0) return out;
  const r = await db.query<{ id: number } & EmuFacts>(
    'SELECT id, code, model, bureau, depot FROM emus WHERE id = ANY($1::int[])',
    [ids],
  );
  for (const row of r.rows) {
    out.set(row.id, { code: row.code, model: row.model, bureau: row.bureau, depot: row.depot });
  }
  return out;
}
