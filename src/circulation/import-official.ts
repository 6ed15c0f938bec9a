import path from 'node:path';
import type { Db } from '../db/db.js';
import { recordRejects, type RejectedLine } from '../ingest/record-rejects.js';
import {
  checkOfficialAgainstCurrent,
  lockCirculations,
  type OfficialCheckSummary,
} from './check-official.js';
import {
  MalformedOfficialEntryError,
  parseOfficialEntry,
  type OfficialEntry,
} from './official-entry.js';
import { readOfficialFile } from './read-official-file.js';

export interface SkippedOfficialEntry {
  line: number;
  entryKey: string;
  reason: string;
}

export interface OfficialImportResult {
  batchId: number;
  file: string;
  /** Entries in the file. */
  read: number;
  /** New EMU circulation tables stored. */
  imported: number;
  /** EMU circulation tables already stored (by an earlier import, or earlier in this file). */
  duplicate: number;
  /** The file's tables that are not EMU circulations (stored once for the record, never checked). */
  skipped: SkippedOfficialEntry[];
  /** Malformed entries, in ingest_rejects with line, field and reason. */
  rejected: number;
  /** The check of the newly imported tables against the current inference run. */
  checks: OfficialCheckSummary;
}

/**
 * Imports official circulation tables (a JSON array, or NDJSON; the community format, see
 * official-entry.ts). Malformed entries go to ingest_rejects (batch kind 'circulations') with
 * their line and reason, and the rest go in. Tables are stored by content, so importing the same
 * file again adds nothing; the new ones are checked against the current inference run in the
 * same transaction, under the lock an inference run takes too.
 */
export async function importOfficialCirculations(
  db: Db,
  file: string,
): Promise<OfficialImportResult> {
  const items = await readOfficialFile(file);
  const name = path.basename(file);
  const entries: { line: number; entry: OfficialEntry }[] = [];
  const rejects: RejectedLine[] = [];
  for (const item of items) {
    if (item.error !== undefined) {
      rejects.push({ line: item.line, field: null, reason: item.error, raw: item.raw });
      continue;
    }
    try {
      entries.push({ line: item.line, entry: parseOfficialEntry(item.value) });
    } catch (err) {
      if (!(err instanceof MalformedOfficialEntryError)) throw err;
      rejects.push({ line: item.line, field: err.field, reason: err.message, raw: item.raw });
    }
  }
  const seen = new Set<string>();
  const unique = entries.filter(
    ({ entry }) => !seen.has(entry.entryKey) && seen.add(entry.entryKey),
  );

  return db.transaction(async (tx) => {
    const batch = await tx.query<{ id: number }>(
      `INSERT INTO ingest_batches (kind, files) VALUES ('circulations', 1) RETURNING id`,
    );
    const batchId = batch.rows[0]!.id;
    await lockCirculations(tx);
    const inserted = await tx.query<{ entry_key: string }>(
      `INSERT INTO official_circulations
         (entry_key, batch_id, file, line, running_start, running_end, emu_note, administrator,
          train_no_total, skip_reason)
       SELECT t.key, $1, $2, t.line, t.running_start, t.running_end, t.emu_note, t.administrator,
              t.total, t.skip
         FROM unnest($3::text[], $4::int[], $5::int[], $6::int[], $7::text[], $8::text[], $9::text[], $10::text[])
           AS t(key, line, running_start, running_end, emu_note, administrator, total, skip)
       ON CONFLICT (entry_key) DO NOTHING
       RETURNING entry_key`,
      [
        batchId,
        name,
        unique.map((u) => u.entry.entryKey),
        unique.map((u) => u.line),
        unique.map((u) => u.entry.runningStart),
        unique.map((u) => u.entry.runningEnd ?? null),
        unique.map((u) => u.entry.emuNote),
        unique.map((u) => u.entry.administrator),
        unique.map((u) => u.entry.trainNoTotal),
        unique.map((u) => u.entry.skipReason ?? null),
      ],
    );
    const fresh = new Set(inserted.rows.map((r) => r.entry_key));
    const trains = unique
      .filter((u) => fresh.has(u.entry.entryKey))
      .flatMap((u) =>
        u.entry.trains.map((t, position) => ({ key: u.entry.entryKey, position, t })),
      );
    if (trains.length > 0) {
      await tx.query(
        `INSERT INTO official_circulation_trains (entry_key, position, written, train_codes, node_key, deadhead)
         SELECT t.key, t.position, t.written, string_to_array(t.codes, '/'), t.node_key, t.deadhead
           FROM unnest($1::text[], $2::int[], $3::text[], $4::text[], $5::text[], $6::boolean[])
             AS t(key, position, written, codes, node_key, deadhead)`,
        [
          trains.map((x) => x.key),
          trains.map((x) => x.position),
          trains.map((x) => x.t.written),
          trains.map((x) => x.t.codes.join('/')),
          trains.map((x) => x.t.nodeKey),
          trains.map((x) => x.t.deadhead),
        ],
      );
    }
    await recordRejects(tx, batchId, name, rejects);
    const toCheck = unique
      .filter((u) => fresh.has(u.entry.entryKey) && u.entry.skipReason === undefined)
      .map((u) => u.entry.entryKey);
    const checks =
      toCheck.length > 0
        ? await checkOfficialAgainstCurrent(tx, toCheck)
        : { checked: 0, raw: 0, split: 0, unmatched: 0, unspecified: 0 };
    const skipped = entries
      .filter((e) => e.entry.skipReason !== undefined)
      .map((e) => ({ line: e.line, entryKey: e.entry.entryKey, reason: e.entry.skipReason! }));
    const imported = toCheck.length;
    const duplicate = entries.filter((e) => e.entry.skipReason === undefined).length - imported;
    await tx.query(
      `UPDATE ingest_batches
          SET finished_at = now(), lines_read = $2, accepted = $3, duplicate = $4, rejected = $5
        WHERE id = $1`,
      [batchId, items.length, fresh.size, duplicate, rejects.length],
    );
    return {
      batchId,
      file: name,
      read: items.length,
      imported,
      duplicate,
      skipped,
      rejected: rejects.length,
      checks,
    };
  });
}
