import type { Queryable } from '../../shared/db/db.js';

/** A line refused on input: where it was, which field (if one is to blame), why, and its text. */
export interface RejectedLine {
  line: number;
  field: string | null;
  reason: string;
  raw: string;
}

/** Stores rejected lines; the same bad line of the same file is kept once however often it is read. */
export async function recordRejects(
  db: Queryable,
  batchId: number,
  file: string,
  rejects: readonly RejectedLine[],
): Promise<void> {
  if (rejects.length === 0) return;
  await db.query(
    `INSERT INTO ingest_rejects (batch_id, file, line, field, reason, raw, raw_hash)
     SELECT $1, $2, t.line, t.field, t.reason, t.raw, sha256(convert_to(t.raw, 'UTF8'))
       FROM unnest($3::int[], $4::text[], $5::text[], $6::text[]) AS t(line, field, reason, raw)
     ON CONFLICT (file, line, raw_hash) DO NOTHING`,
    [
      batchId,
      file,
      rejects.map((r) => r.line),
      rejects.map((r) => r.field),
      rejects.map((r) => r.reason),
      rejects.map((r) => r.raw),
    ],
  );
}
