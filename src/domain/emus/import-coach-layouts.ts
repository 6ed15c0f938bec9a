import path from 'node:path';
import { z } from 'zod';
import type { Db, Queryable } from '../../shared/db/db.js';
import { isFsError } from '../../shared/io/fs-error.js';
import { recordRejects, type RejectedLine } from '../ingest/record-rejects.js';
import { readJsonEntries, UnreadableJsonEntriesError } from '../../shared/io/json-entries.js';
import { parseEmuCode } from './normalize-emu-code.js';
import { EmutrackError } from '../../shared/errors/emutrack-error.js';

/**
 * Coach layouts (the allocation's coachLayouts) come in a file of entries, each naming units by
 * code or alias (`emuCodes`) and/or by model (`models`, every unit whose model is that at import
 * time) and giving their coaches:
 *
 *   [{ "models": ["CR400AF"], "emuCodes": ["CR400AF-2001"],
 *      "coaches": [{ "coachNo": 1, "coachTypeCode": "ZYS", "coachTypeName": "一等座/商务座车",
 *                    "capacity": 33, "hasPower": true, "hasPantograph": false,
 *                    "hasLargeLuggageArea": false, "hasAccessibleFacility": false }, ...] }]
 *
 * The file is read by readJsonEntries (src/shared/io): a JSON array of entries, one entry, or NDJSON
 * (one entry per line), whatever its name; an array element that is not JSON is rejected alone. Entries apply in order: a unit's layout is the coaches of the last entry naming it, and
 * replaces its stored layout as a whole (so a model-wide entry first, exceptions after). Units
 * no entry names keep theirs. A bad entry (a malformed field, a unit that is not registered) is
 * rejected with its reason in ingest_rejects (batch kind "coach-layouts"; `line` is the line the
 * entry starts on); the others are imported.
 */
export interface CoachLayoutImportResult {
  batchId: number;
  file: string;
  /** Entries read. */
  read: number;
  accepted: number;
  rejected: number;
  /** Units whose layout was set. */
  units: number;
  /** Models named by an entry that no registered unit has. */
  unmatchedModels: string[];
}

export class CoachLayoutFileError extends EmutrackError {
  constructor(file: string, reason: string) {
    super('coach_layout_file_invalid', `${file}: ${reason}`);
  }
}

const flag = z.boolean({ error: 'expected true or false' }).default(false);
const text = (max: number) =>
  z.string({ error: 'expected text' }).trim().max(max, `longer than ${max} characters`).default('');

const coachSchema = z.object(
  {
    coachNo: z.number({ error: 'expected the coach number' }).int().min(1).max(99),
    coachTypeCode: text(20),
    coachTypeName: text(50),
    capacity: z.number({ error: 'expected a whole number' }).int().min(0).max(2000).default(0),
    hasPower: flag,
    hasPantograph: flag,
    hasLargeLuggageArea: flag,
    hasAccessibleFacility: flag,
  },
  { error: 'expected a coach object' },
);

const entrySchema = z
  .object(
    {
      emuCodes: z
        .array(z.string().trim().min(1), { error: 'expected an array of EMU codes' })
        .default([]),
      models: z
        .array(z.string().trim().min(1), { error: 'expected an array of models' })
        .default([]),
      coaches: z
        .array(coachSchema, { error: 'expected an array of coaches' })
        .min(1, 'at least one coach')
        .max(32, 'more than 32 coaches'),
    },
    { error: 'expected an object with emuCodes and/or models, and coaches' },
  )
  .superRefine((e, ctx) => {
    if (e.emuCodes.length === 0 && e.models.length === 0)
      ctx.addIssue({
        code: 'custom',
        message: 'name units by emuCodes or models',
        path: ['emuCodes'],
      });
    const seen = new Set<number>();
    e.coaches.forEach((c, i) => {
      if (seen.has(c.coachNo))
        ctx.addIssue({
          code: 'custom',
          message: `coach ${c.coachNo} twice`,
          path: ['coaches', i, 'coachNo'],
        });
      seen.add(c.coachNo);
    });
  });

type Entry = z.infer<typeof entrySchema>;
type Coach = Entry['coaches'][number];

/** emuId of each written code or alias, for those registered. */
async function findUnits(tx: Queryable, written: readonly string[]): Promise<Map<string, number>> {
  const canonical = new Map<string, string>();
  for (const w of written) {
    try {
      canonical.set(w, parseEmuCode(w).code);
    } catch {
      // Not a code; it may still be an alias such as 5157号.
    }
  }
  const r = await tx.query<{ alias: string; emu_id: number }>(
    'SELECT alias, emu_id FROM emu_aliases WHERE alias = ANY ($1::text[])',
    [[...new Set([...written, ...canonical.values()])]],
  );
  const byAlias = new Map(r.rows.map((x) => [x.alias, x.emu_id]));
  const out = new Map<string, number>();
  for (const w of written) {
    const id = byAlias.get(w) ?? byAlias.get(canonical.get(w) ?? '');
    if (id !== undefined) out.set(w, id);
  }
  return out;
}

/** Imports coach layouts from a file (see the comment above for the form). */
export async function importCoachLayouts(db: Db, file: string): Promise<CoachLayoutImportResult> {
  const name = path.basename(file);
  const entries: { line: number; raw: string; entry: Entry }[] = [];
  const rejects: RejectedLine[] = [];
  let read = 0;
  try {
    for await (const item of readJsonEntries(file)) {
      read++;
      if (item.error !== undefined) {
        rejects.push({ line: item.line, raw: item.raw, field: null, reason: item.error });
        continue;
      }
      const parsed = entrySchema.safeParse(item.value);
      if (parsed.success) {
        entries.push({ line: item.line, raw: item.raw, entry: parsed.data });
      } else {
        const issue = parsed.error.issues[0]!;
        const field = z.core.toDotPath(issue.path) || null;
        rejects.push({
          line: item.line,
          raw: item.raw,
          field,
          reason: field ? `${field}: ${issue.message}` : issue.message,
        });
      }
    }
  } catch (err) {
    if (err instanceof UnreadableJsonEntriesError)
      throw new CoachLayoutFileError(name, err.message);
    if (isFsError(err)) throw new CoachLayoutFileError(name, (err as Error).message);
    throw err;
  }

  return db.transaction(async (tx) => {
    const units = await findUnits(tx, [...new Set(entries.flatMap((e) => e.entry.emuCodes))]);
    const models = [...new Set(entries.flatMap((e) => e.entry.models))];
    const byModel = new Map<string, number[]>(models.map((m) => [m, []]));
    const r = await tx.query<{ id: number; model: string }>(
      'SELECT id, model FROM emus WHERE model = ANY ($1::text[]) ORDER BY id',
      [models],
    );
    for (const row of r.rows) byModel.get(row.model)!.push(row.id);

    const layout = new Map<number, Coach[]>();
    let accepted = 0;
    for (const { line, raw, entry } of entries) {
      const missing = entry.emuCodes.findIndex((c) => !units.has(c));
      if (missing >= 0) {
        rejects.push({
          line,
          raw,
          field: `emuCodes[${missing}]`,
          reason: `emuCodes[${missing}]: no registered EMU ${JSON.stringify(entry.emuCodes[missing])} (import the fleet first)`,
        });
        continue;
      }
      accepted++;
      const coaches = [...entry.coaches].sort((a, b) => a.coachNo - b.coachNo);
      for (const m of entry.models) for (const id of byModel.get(m)!) layout.set(id, coaches);
      for (const c of entry.emuCodes) layout.set(units.get(c)!, coaches);
    }
    const ids = [...layout.keys()].sort((a, b) => a - b);
    await tx.query('DELETE FROM emu_coach_layouts WHERE emu_id = ANY ($1::int[])', [ids]);
    const rows = ids.flatMap((id) => layout.get(id)!.map((c) => ({ id, ...c })));
    await tx.query(
      `INSERT INTO emu_coach_layouts (emu_id, coach_no, coach_type_code, coach_type_name, capacity,
                                     has_power, has_pantograph, has_large_luggage_area,
                                     has_accessible_facility)
       SELECT * FROM unnest($1::int[], $2::int[], $3::text[], $4::text[], $5::int[], $6::bool[],
                            $7::bool[], $8::bool[], $9::bool[])`,
      [
        rows.map((x) => x.id),
        rows.map((x) => x.coachNo),
        rows.map((x) => x.coachTypeCode),
        rows.map((x) => x.coachTypeName),
        rows.map((x) => x.capacity),
        rows.map((x) => x.hasPower),
        rows.map((x) => x.hasPantograph),
        rows.map((x) => x.hasLargeLuggageArea),
        rows.map((x) => x.hasAccessibleFacility),
      ],
    );
    const batch = await tx.query<{ id: number }>(
      `INSERT INTO ingest_batches (kind, files, lines_read, accepted, rejected, finished_at)
       VALUES ('coach-layouts', 1, $1, $2, $3, now()) RETURNING id`,
      [read, accepted, rejects.length],
    );
    const batchId = batch.rows[0]!.id;
    await recordRejects(tx, batchId, name, rejects);
    return {
      batchId,
      file: name,
      read,
      accepted,
      rejected: rejects.length,
      units: ids.length,
      unmatchedModels: models.filter((m) => byModel.get(m)!.length === 0),
    };
  });
}
