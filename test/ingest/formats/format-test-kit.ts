import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import type { Queryable } from '../../../src/shared/db/db.js';
import { clearStaleDay, listStaleDays } from '../../../src/domain/records/stale-days.js';

/** A temp directory for the file's fixtures, removed afterwards; `write` puts a file in it. */
export function useFixtureDir(): { write(name: string, content: string): Promise<string> } {
  let dir = '';
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'emutrack-formats-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });
  return {
    async write(name, content) {
      const file = path.join(dir, name);
      await writeFile(file, content);
      return file;
    },
  };
}

/** A day's records as [train, canonical unit, support, sources], in order. */
export async function recordsOf(db: Queryable, serviceDay: number): Promise<unknown[][]> {
  const r = await db.query<{
    train_code: string;
    code: string;
    support: number;
    sources: string[];
  }>(
    `SELECT d.train_code, e.code, d.support, d.sources FROM daily_records d
       JOIN emus e ON e.id = d.emu_id WHERE d.service_day = $1 ORDER BY 1, 2`,
    [serviceDay],
  );
  return r.rows.map((x) => [x.train_code, x.code, x.support, x.sources]);
}

/** A file's rejects as [line, field, reason], by line. */
export async function rejectsOf(db: Queryable, file: string): Promise<unknown[][]> {
  const r = await db.query<{ line: number; field: string | null; reason: string }>(
    'SELECT line, field, reason FROM ingest_rejects WHERE file = $1 ORDER BY line',
    [file],
  );
  return r.rows.map((x) => [x.line, x.field, x.reason]);
}

/** Clears every stale mark, so that a test sees the marks its next step makes. */
export async function clearStaleDays(db: Queryable): Promise<void> {
  for (const d of await listStaleDays(db)) await clearStaleDay(db, d.serviceDay, d.mark);
}
