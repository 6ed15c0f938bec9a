import { mkdir, rename } from 'node:fs/promises';
import path from 'node:path';
import type { Db } from '../db/db.js';
import {
  ingestObservations,
  listInputFiles,
  type IngestOptions,
  type IngestResult,
} from './ingest-observations.js';

/**
 * Ingests every observation file waiting in an inbox directory, one at a time, moving each to
 * done/ once its lines are stored (failed/ when the file could not be read). A crash between
 * the two steps leaves the file in the inbox; ingesting it again adds nothing.
 */
export async function ingestInbox(
  db: Db,
  inbox: string,
  options: IngestOptions = {},
): Promise<IngestResult> {
  const { files } = await listInputFiles(inbox);
  const total: IngestResult = {
    batchId: 0,
    read: 0,
    accepted: 0,
    duplicate: 0,
    rejected: 0,
    files: [],
    serviceDays: [],
  };
  const days = new Set<number>();
  for (const file of files) {
    const r = await ingestObservations(db, file, options);
    const failed = r.files.some((f) => f.error !== undefined);
    const destDir = path.join(inbox, failed ? 'failed' : 'done');
    await mkdir(destDir, { recursive: true });
    await rename(file, path.join(destDir, path.basename(file)));
    total.batchId = r.batchId;
    total.read += r.read;
    total.accepted += r.accepted;
    total.duplicate += r.duplicate;
    total.rejected += r.rejected;
    total.files.push(...r.files);
    for (const d of r.serviceDays) days.add(d);
  }
  total.serviceDays = [...days].sort((a, b) => a - b);
  return total;
}
