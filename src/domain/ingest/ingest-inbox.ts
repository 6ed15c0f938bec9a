import { mkdir, rename } from 'node:fs/promises';
import path from 'node:path';
import type { Db } from '../../shared/db/db.js';
import { isEmutrackError } from '../../shared/errors/emutrack-error.js';
import {
  ingestObservations,
  listInputFiles,
  type IngestOptions,
  type IngestResult,
} from './ingest-observations.js';

/**
 * Whether the inbox holds a file to ingest (an absent inbox holds none). The worker asks before
 * each sweep, so an empty inbox costs a directory read: no job, no job_runs row (a sweep every
 * 30 s recorded some 2,900 empty runs a day).
 */
export async function inboxHasFiles(inbox: string): Promise<boolean> {
  try {
    return (await listInputFiles(inbox)).files.length > 0;
  } catch (err) {
    if (isEmutrackError(err, 'input_not_found')) return false;
    throw err;
  }
}

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
