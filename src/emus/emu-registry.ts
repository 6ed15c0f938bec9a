import type { Queryable } from '../db/db.js';
import { parseEmuCode } from './normalize-emu-code.js';

/**
 * Resolves written EMU codes to emuIds, registering units never seen before: an observation
 * is never dropped because its EMU is unknown. Every written form is kept as an alias.
 * Codes must already be known to parse (see parseEmuCode).
 */
export async function resolveEmuIds(
  db: Queryable,
  writtenCodes: Iterable<string>,
): Promise<Map<string, number>> {
  const written = [...new Set(writtenCodes)];
  const ids = new Map<string, number>();
  if (written.length === 0) return ids;
  const known = await db.query<{ alias: string; emu_id: number }>(
    'SELECT alias, emu_id FROM emu_aliases WHERE alias = ANY($1::text[])',
    [written],
  );
  for (const r of known.rows) ids.set(r.alias, r.emu_id);
  const missing = written.filter((w) => !ids.has(w));
  if (missing.length === 0) return ids;

  const parsed = missing.map((w) => ({ written: w, ...parseEmuCode(w) }));
  const byCode = new Map(parsed.map((p) => [p.code, p]));
  const codes = [...byCode.keys()];
  await db.query(
    `INSERT INTO emus (code, model, train_set_no, registered_by)
     SELECT code, model, train_set_no, 'observation'
       FROM unnest($1::text[], $2::text[], $3::text[]) AS t(code, model, train_set_no)
     ORDER BY code
     ON CONFLICT (code) DO NOTHING`,
    [codes, codes.map((c) => byCode.get(c)!.model), codes.map((c) => byCode.get(c)!.trainSetNo)],
  );
  const rows = await db.query<{ id: number; code: string }>(
    'SELECT id, code FROM emus WHERE code = ANY($1::text[])',
    [codes],
  );
  const idByCode = new Map(rows.rows.map((r) => [r.code, r.id]));
  const aliases = new Map<string, number>();
  for (const p of parsed) {
    const id = idByCode.get(p.code)!;
    ids.set(p.written, id);
    aliases.set(p.written, id);
    aliases.set(p.code, id);
  }
  await addAliases(db, aliases);
  return ids;
}

/** Records alias -> emuId pairs; an alias already taken keeps its first owner. */
export async function addAliases(db: Queryable, aliases: Map<string, number>): Promise<void> {
  if (aliases.size === 0) return;
  const sorted = [...aliases].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  await db.query(
    `INSERT INTO emu_aliases (alias, emu_id)
     SELECT * FROM unnest($1::text[], $2::int[]) ORDER BY 1
     ON CONFLICT (alias) DO NOTHING`,
    [sorted.map((a) => a[0]), sorted.map((a) => a[1])],
  );
}

/** The emuId a code or alias names, or undefined. */
export async function findEmuId(db: Queryable, codeOrAlias: string): Promise<number | undefined> {
  const direct = await db.query<{ emu_id: number }>(
    'SELECT emu_id FROM emu_aliases WHERE alias = $1',
    [codeOrAlias],
  );
  if (direct.rows[0]) return direct.rows[0].emu_id;
  try {
    const { code } = parseEmuCode(codeOrAlias);
    const r = await db.query<{ id: number }>('SELECT id FROM emus WHERE code = $1', [code]);
    return r.rows[0]?.id;
  } catch {
    return undefined;
  }
}
