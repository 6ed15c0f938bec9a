import type { Db, Queryable } from '../../shared/db/db.js';
import { parseEmuCode, type ParsedEmuCode } from './normalize-emu-code.js';

/**
 * Resolves written EMU codes to emuIds, registering units never seen before: an observation
 * is never dropped because its EMU is unknown. The written unit form (the code as written, less
 * any travel-code seat tail) and the canonical code are kept as aliases. Codes must parse (see
 * parseEmuCode). `cache` (written -> emuId) may be shared across calls of one ingestion: an
 * alias never changes owner, so an entry never goes stale. Given a transaction, it registers in
 * it; given a database, in a transaction of its own (a unit and its aliases both or neither),
 * and `cache` learns the ids once it has committed.
 */
export async function resolveEmuIds(
  db: Queryable | Db,
  writtenCodes: Iterable<string>,
  cache: Map<string, number> = new Map(),
): Promise<Map<string, number>> {
  if ('transaction' in db) {
    const codes = [...writtenCodes];
    const ids = await db.transaction((tx) => resolveEmuIds(tx, codes, new Map(cache)));
    for (const [w, id] of ids) cache.set(w, id);
    return ids;
  }
  const ids = new Map<string, number>();
  const parsed = parseUncached(writtenCodes, cache, ids);
  if (parsed.size === 0) return ids;

  const known = await db.query<{ alias: string; emu_id: number }>(
    'SELECT alias, emu_id FROM emu_aliases WHERE alias = ANY($1::text[])',
    [aliasesToLookUp(parsed)],
  );
  const byAlias = aliasOwners(known.rows);
  const unknown = unknownUnits(parsed, byAlias);
  const idByNewCode = new Map<string, number>();
  if (unknown.codes.length > 0) {
    const params = [unknown.codes, unknown.models, unknown.trainSetNos];
    const select = `SELECT code, model, train_set_no, 'observation'
         FROM unnest($1::text[], $2::text[], $3::text[]) AS t(code, model, train_set_no)`;
    const rows = await insertNew(
      db,
      {
        text: `INSERT INTO emus (code, model, train_set_no, registered_by) ${select} RETURNING id, code`,
        params,
      },
      async () => {
        await db.query(
          `INSERT INTO emus (code, model, train_set_no, registered_by) ${select}
           ON CONFLICT (code) DO NOTHING`,
          params,
        );
        return (
          await db.query<{ id: number; code: string }>(
            'SELECT id, code FROM emus WHERE code = ANY($1::text[])',
            [unknown.codes],
          )
        ).rows;
      },
    );
    for (const r of rows) idByNewCode.set(r.code, r.id);
  }
  await addNewAliases(db, assignIds(parsed, byAlias, idByNewCode, ids, cache));
  return ids;
}

// The loops of resolveEmuIds, each a small function of its own: inside the async function they
// made it one large optimisation unit (parseEmuCode and every Map operation inlined into its
// resumable body), which V8 compiled on each of a worker's first pulls, for 55-170 ms of a
// compiler thread each time (docs/performance.md, Sources).

/** The written codes `cache` does not know, parsed; the ones it knows go into `ids`. */
function parseUncached(
  writtenCodes: Iterable<string>,
  cache: Map<string, number>,
  ids: Map<string, number>,
): Map<string, ParsedEmuCode> {
  const parsed = new Map<string, ParsedEmuCode>();
  for (const w of writtenCodes) {
    if (ids.has(w) || parsed.has(w)) continue;
    const hit = cache.get(w);
    if (hit !== undefined) ids.set(w, hit);
    else parsed.set(w, parseEmuCode(w));
  }
  return parsed;
}

/** Every written unit form and canonical code of `parsed`, once each. */
function aliasesToLookUp(parsed: Map<string, ParsedEmuCode>): string[] {
  const lookup = new Set<string>();
  for (const p of parsed.values()) lookup.add(p.writtenUnit).add(p.code);
  return [...lookup];
}

function aliasOwners(rows: { alias: string; emu_id: number }[]): Map<string, number> {
  const byAlias = new Map<string, number>();
  for (const r of rows) byAlias.set(r.alias, r.emu_id);
  return byAlias;
}

/** The units of `parsed` no alias names, as the columns of their rows, in code order. */
function unknownUnits(
  parsed: Map<string, ParsedEmuCode>,
  byAlias: Map<string, number>,
): { codes: string[]; models: string[]; trainSetNos: string[] } {
  const unknown = new Map<string, ParsedEmuCode>();
  for (const p of parsed.values()) {
    if (!byAlias.has(p.writtenUnit) && !byAlias.has(p.code)) unknown.set(p.code, p);
  }
  const codes = [...unknown.keys()].sort();
  const models: string[] = [];
  const trainSetNos: string[] = [];
  for (const c of codes) {
    const p = unknown.get(c)!;
    models.push(p.model);
    trainSetNos.push(p.trainSetNo);
  }
  return { codes, models, trainSetNos };
}

/**
 * Each parsed code's unit into `ids` and `cache`; returns the aliases (written unit form and
 * canonical code) that are not recorded yet, with their units.
 */
function assignIds(
  parsed: Map<string, ParsedEmuCode>,
  byAlias: Map<string, number>,
  idByNewCode: Map<string, number>,
  ids: Map<string, number>,
  cache: Map<string, number>,
): Map<string, number> {
  const newAliases = new Map<string, number>();
  for (const [w, p] of parsed) {
    // A written form someone already owns wins; else the canonical code's unit.
    const id = byAlias.get(p.writtenUnit) ?? byAlias.get(p.code) ?? idByNewCode.get(p.code)!;
    ids.set(w, id);
    cache.set(w, id);
    if (!byAlias.has(p.writtenUnit)) newAliases.set(p.writtenUnit, id);
    if (!byAlias.has(p.code)) newAliases.set(p.code, id);
  }
  return newAliases;
}

/**
 * The rows of `plain`, an INSERT without ON CONFLICT (RETURNING what the caller needs), or, when
 * a row of it was registered meanwhile by another writer (a unique violation), of `safe`.
 * Registrations are almost always new rows (the codes were looked up first), and a plain INSERT
 * costs Postgres half of one with ON CONFLICT (no speculative insertion: three WAL records a row,
 * not four, and no arbiter probe): 24 against 50 ms for 4,000 units, 19 against 43 ms for their
 * aliases. The plain INSERT runs in a savepoint, so its failure costs only itself. `db` must be
 * in a transaction.
 */
async function insertNew<R>(
  db: Queryable,
  plain: { text: string; params: unknown[] },
  safe: () => Promise<R[]>,
): Promise<R[]> {
  await db.query('SAVEPOINT emu_registry');
  try {
    const r = await db.query<R>(plain.text, plain.params);
    await db.query('RELEASE SAVEPOINT emu_registry');
    return r.rows;
  } catch (err) {
    if ((err as { code?: unknown }).code !== '23505') throw err;
    await db.query('ROLLBACK TO SAVEPOINT emu_registry');
    return safe();
  }
}

/** The rows of alias -> emuId pairs, in alias order (the order every writer takes their keys in). */
const ALIAS_ROWS = `INSERT INTO emu_aliases (alias, emu_id)
     SELECT * FROM unnest($1::text[], $2::int[]) ORDER BY 1`;

function aliasParams(aliases: Map<string, number>): [string[], number[]] {
  const sorted = [...aliases].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  return [sorted.map((a) => a[0]), sorted.map((a) => a[1])];
}

/** Records alias -> emuId pairs; an alias already taken keeps its first owner. */
export async function addAliases(db: Queryable, aliases: Map<string, number>): Promise<void> {
  if (aliases.size === 0) return;
  await db.query(`${ALIAS_ROWS} ON CONFLICT (alias) DO NOTHING`, aliasParams(aliases));
}

/**
 * addAliases for aliases looked up as absent in this transaction: inserted without ON CONFLICT
 * (insertNew), and with it only when another writer added one of them meanwhile.
 */
async function addNewAliases(db: Queryable, aliases: Map<string, number>): Promise<void> {
  if (aliases.size === 0) return;
  const params = aliasParams(aliases);
  await insertNew(db, { text: ALIAS_ROWS, params }, async () => {
    await db.query(`${ALIAS_ROWS} ON CONFLICT (alias) DO NOTHING`, params);
    return [];
  });
}

/**
 * The emuId a written EMU code names, or undefined: the one lookup for codes in paths and
 * arguments. An alias recorded exactly as written wins (a written form keeps its first owner,
 * even against the registry's rules); else the code is normalised by the registry's rules
 * (parseEmuCode: case, dashes and look-alikes, travel-code seat tails, Fuxing variants) and its
 * canonical code, or its written unit form, looked up. So CR400AF2001, cr400af-2001 and
 * CR400AF-2001-02-03F all find CR400AF-2001 when no sighting wrote them that way. A code that
 * does not parse names nothing.
 */
export async function findEmuId(db: Queryable, written: string): Promise<number | undefined> {
  let parsed: ParsedEmuCode | undefined;
  try {
    parsed = parseEmuCode(written);
  } catch {
    parsed = undefined;
  }
  const r = await db.query<{ id: number }>(
    `SELECT id FROM (
       SELECT emu_id AS id, 0 AS rank FROM emu_aliases WHERE alias = $1
       UNION ALL SELECT id, 1 FROM emus WHERE code = $1
       UNION ALL SELECT id, 2 FROM emus WHERE code = $2
       UNION ALL SELECT emu_id, 3 FROM emu_aliases WHERE alias = $2 OR alias = $3
     ) found ORDER BY rank LIMIT 1`,
    [written, parsed?.code ?? written, parsed?.writtenUnit ?? written],
  );
  return r.rows[0]?.id;
}

/**
 * The unit whose records a unit's sightings count for: the unit a correction merged it into
 * (src/domain/corrections: its codes then find that unit), else itself.
 */
export async function followMerge(db: Queryable, emuId: number): Promise<number> {
  const r = await db.query<{ target_emu_id: number }>(
    'SELECT target_emu_id FROM emu_merges WHERE from_emu_id = $1',
    [emuId],
  );
  return r.rows[0]?.target_emu_id ?? emuId;
}
