import path from 'node:path';
import type { Db } from '../../shared/db/db.js';
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
import {
  readJsonEntries,
  UnreadableJsonEntriesError,
  type JsonEntry,
} from '../../shared/io/json-entries.js';
import { EmutrackError } from '../../shared/errors/emutrack-error.js';

/** Where an entry is in the file: its index in a JSON array (from 0), else its line. */
export interface OfficialEntryPlace {
  /** 1-based line on which the entry starts. */
  line: number;
  /** 0-based index in a JSON array; absent for NDJSON. */
  index?: number;
  /** "entry 3 (line 1)" in a JSON array, "line 12" in NDJSON. */
  where: string;
}

export interface SkippedOfficialEntry extends OfficialEntryPlace {
  entryKey: string;
  reason: string;
}

export interface RejectedOfficialEntry extends OfficialEntryPlace {
  field: string | null;
  reason: string;
}

/** The file cannot be read at all (missing, a directory, unreadable). */
export class UnreadableOfficialFileError extends EmutrackError {
  constructor(message: string) {
    super('official_file_unreadable', message);
  }
}

function placeOf(item: JsonEntry): OfficialEntryPlace {
  return item.index === undefined
    ? { line: item.line, where: item.where }
    : { line: item.line, index: item.index, where: item.where };
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
  /** The malformed entries, each named by its place (index in an array, line in NDJSON). */
  rejects: RejectedOfficialEntry[];
  /** The check of the newly imported tables against the current inference run. */
  checks: OfficialCheckSummary;
}

/**
 * Imports official circulation tables (a JSON array, or NDJSON; the community format, see
 * official-entry.ts), read by readJsonEntries (src/shared/io). Malformed entries go to ingest_rejects
 * (batch kind 'circulations') with the line they start on, field and reason, and are returned
 * named by their index in a JSON array (their line in NDJSON); the rest go in. Tables are stored by content, so importing the same
 * file again adds nothing; the new ones are checked against the current inference run in the
 * same transaction, under the lock an inference run takes too.
 */
export async function importOfficialCirculations(
  db: Db,
  file: string,
): Promise<OfficialImportResult> {
  const items: JsonEntry[] = [];
  try {
    for await (const item of readJsonEntries(file)) items.push(item);
  } catch (err) {
    if (err instanceof UnreadableJsonEntriesError)
      throw new UnreadableOfficialFileError(err.message);
    throw err;
  }
  const name = path.basename(file);
  const entries: { place: OfficialEntryPlace; entry: OfficialEntry }[] = [];
  const rejects: RejectedLine[] = [];
  const rejected: RejectedOfficialEntry[] = [];
  const reject = (item: JsonEntry, field: string | null, reason: string) => {
    rejects.push({ line: item.line, field, reason, raw: item.raw });
    rejected.push({ ...placeOf(item), field, reason });
  };
  for (const item of items) {
    if (item.error !== undefined) {
      reject(item, null, item.error);
      continue;
    }
    try {
      entries.push({ place: placeOf(item), entry: parseOfficialEntry(item.value) });
    } catch (err) {
      if (!(err instanceof MalformedOfficialEntryError)) throw err;
      reject(item, err.field, err.message);
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
        unique.map((u) => u.place.line),
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
      .map((e) => ({ ...e.place, entryKey: e.entry.entryKey, reason: e.entry.skipReason! }));
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
      rejects: rejected,
      checks,
    };
  });
}
