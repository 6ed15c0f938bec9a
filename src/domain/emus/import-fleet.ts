import path from 'node:path';
import type { Db } from '../../shared/db/db.js';
import { recordRejects, type RejectedLine } from '../ingest/record-rejects.js';
import { allocationJsonFormat } from './allocation-json-format.js';
import { addAliases } from './emu-registry.js';
import {
  FLEET_COLUMNS,
  parseFleetCell,
  SQL_TYPE,
  type FleetColumn,
  type FleetValue,
} from './fleet-columns.js';
import { fleetCsvFormat } from './fleet-csv-format.js';
import { FleetFileError } from './fleet-file-error.js';
import { readFileHead, type FleetFormat } from './fleet-format.js';
import { MalformedEmuCodeError, parseEmuCode } from './normalize-emu-code.js';

export { FleetFileError };

export interface FleetImportResult {
  batchId: number;
  file: string;
  /** The format found from the file's content. */
  format: string;
  read: number;
  /** Units described by the file that were not registered before. */
  created: number;
  /** Units that were already registered (by a fleet import or a sighting) and were updated. */
  updated: number;
  rejected: number;
  /** Header columns (or JSON fields) that are not fleet fields; their values were not stored. */
  ignoredColumns: string[];
}

/** The formats of import-fleet, in the order detection asks them. */
export const FLEET_FORMATS: readonly FleetFormat[] = [allocationJsonFormat, fleetCsvFormat];

export interface FleetImportOptions {
  /** The largest JSON file read (bounded-json.ts). */
  maxJsonBytes?: number;
}

interface FleetRow {
  line: number;
  written: string;
  code: string;
  model: string;
  trainSetNo: string;
  aliases: string[];
  values: Map<FleetColumn, FleetValue>;
}

/**
 * Imports a fleet file: a fleet CSV (header row; `emu_code` required, the allocation fields
 * optional; see fleet-columns.ts) or the allocation export (a JSON array of units:
 * allocation-json-format.ts), told apart by their content. New units are registered, known
 * ones updated; every written code and `alias` entry becomes an alias. Bad rows go to
 * ingest_rejects (batch kind "fleet").
 */
export async function importFleet(
  db: Db,
  file: string,
  options: FleetImportOptions = {},
): Promise<FleetImportResult> {
  const name = path.basename(file);
  const head = await readFileHead(file).catch((err: Error) => {
    throw new FleetFileError(name, err.message);
  });
  const format = FLEET_FORMATS.find((f) => f.detect(head));
  if (!format)
    throw new FleetFileError(
      name,
      `unknown format (first line ${JSON.stringify(head.firstLine.slice(0, 60))}): expected a fleet CSV (a header with emu_code) or the allocation export (a JSON array of units)`,
    );
  const seen = new Set<string>();
  const ignored = new Set<string>();
  const rows: FleetRow[] = [];
  const rejects: RejectedLine[] = [];
  let read = 0;
  const parsed: { line: number; raw: string; cells: Record<string, string> }[] = [];
  try {
    for await (const row of format.read(file, { name, maxJsonBytes: options.maxJsonBytes })) {
      read++;
      if ('error' in row) {
        rejects.push({ line: row.line, field: row.field, reason: row.error, raw: row.raw });
        continue;
      }
      for (const c of Object.keys(row.cells)) seen.add(c);
      for (const c of row.ignored ?? []) ignored.add(c);
      parsed.push(row);
    }
  } catch (err) {
    if (err instanceof FleetFileError) throw err;
    throw new FleetFileError(name, (err as Error).message);
  }
  // The columns any row gives, in the fleet's order: the others are not touched.
  const columns = (Object.keys(FLEET_COLUMNS) as FleetColumn[]).filter((c) => seen.has(c));
  const ignoredColumns = [...ignored];
  for (const { line, raw, cells } of parsed) {
    try {
      const written = (cells.emu_code ?? '').trim();
      if (written === '')
        throw Object.assign(new Error('emu_code: missing'), { field: 'emu_code' });
      let parsed;
      try {
        parsed = parseEmuCode(written);
      } catch (err) {
        if (err instanceof MalformedEmuCodeError)
          throw Object.assign(new Error(`emu_code: ${err.message}`), { field: 'emu_code' });
        throw err;
      }
      const values = new Map<FleetColumn, FleetValue>();
      for (const c of columns) {
        try {
          values.set(c, parseFleetCell(FLEET_COLUMNS[c], cells[c] ?? ''));
        } catch (err) {
          throw Object.assign(new Error(`${c}: ${(err as Error).message}`), { field: c });
        }
      }
      const aliases = (cells.alias ?? '')
        .split('|')
        .map((a) => a.trim())
        .filter((a) => a !== '');
      rows.push({
        line,
        written,
        code: parsed.code,
        model: parsed.model,
        trainSetNo: parsed.trainSetNo,
        aliases,
        values,
      });
    } catch (err) {
      const field = (err as { field?: string }).field ?? null;
      rejects.push({ line, field, reason: (err as Error).message, raw });
    }
  }
  // Rejects in file order, whichever step refused them.
  rejects.sort((a, b) => a.line - b.line);

  return db.transaction(async (tx) => {
    const batch = await tx.query<{ id: number }>(
      `INSERT INTO ingest_batches (kind, files, lines_read, accepted, rejected, finished_at)
       VALUES ('fleet', 1, $1, $2, $3, now()) RETURNING id`,
      [read, rows.length, rejects.length],
    );
    const batchId = batch.rows[0]!.id;
    // A later line for the same unit wins, as it would if the file were applied line by line.
    const byCode = new Map<string, FleetRow>();
    for (const r of rows) byCode.set(r.code, r);
    const unique = [...byCode.values()];
    const codes = unique.map((r) => r.code);
    const inserted = await tx.query(
      `INSERT INTO emus (code, model, train_set_no, registered_by)
       SELECT code, model, train_set_no, 'fleet' FROM unnest($1::text[], $2::text[], $3::text[]) AS t(code, model, train_set_no)
       ORDER BY code
       ON CONFLICT (code) DO NOTHING`,
      [codes, unique.map((r) => r.model), unique.map((r) => r.trainSetNo)],
    );
    if (unique.length > 0) {
      const params: unknown[] = [codes];
      const sets: string[] = [`registered_by = 'fleet'`, 'updated_at = now()'];
      const unnestCols: string[] = ['$1::text[]'];
      const names: string[] = ['code'];
      columns.forEach((c, i) => {
        const kind = FLEET_COLUMNS[c];
        params.push(unique.map((r) => r.values.get(c) ?? null));
        unnestCols.push(`$${i + 2}::${SQL_TYPE[kind]}[]`);
        names.push(c);
        const value = kind === 'list' ? `string_to_array(t.${c}, '|')` : `t.${c}`;
        sets.push(`${c} = COALESCE(${value}, e.${c})`);
      });
      await tx.query(
        `UPDATE emus e SET ${sets.join(', ')}
           FROM unnest(${unnestCols.join(', ')}) AS t(${names.join(', ')})
          WHERE e.code = t.code`,
        params,
      );
    }
    const ids = await tx.query<{ id: number; code: string }>(
      'SELECT id, code FROM emus WHERE code = ANY($1::text[])',
      [codes],
    );
    const idByCode = new Map(ids.rows.map((r) => [r.code, r.id]));
    const aliases = new Map<string, number>();
    for (const r of rows) {
      const id = idByCode.get(r.code)!;
      for (const a of [r.code, r.written, ...r.aliases]) aliases.set(a, id);
    }
    await addAliases(tx, aliases);
    await recordRejects(tx, batchId, name, rejects);
    return {
      batchId,
      file: name,
      format: format.name,
      read,
      created: inserted.rowCount,
      updated: unique.length - inserted.rowCount,
      rejected: rejects.length,
      ignoredColumns,
    };
  });
}
