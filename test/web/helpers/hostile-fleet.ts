import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { importFleet } from '../../../src/domain/emus/import-fleet.js';
import type { Db } from '../../../src/shared/db/db.js';

/** Markup a page must print as text, never as markup. */
export const HOSTILE_ALIAS = '<script>alert(1)</script>';
export const HOSTILE_DEPOT = '"><img src=x onerror=alert(1)>';
/** A unit of the fixture's model family whose alias and depot are the hostile texts above. */
export const HOSTILE_UNIT = 'CR400AF-2099';

/** Imports one more fleet row: HOSTILE_UNIT, its alias and depot hostile (quoted as CSV). */
export async function importHostileUnit(db: Db): Promise<void> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'emutrack-web-fleet-'));
  try {
    const file = path.join(dir, 'fleet.csv');
    const quote = (v: string) => `"${v.replaceAll('"', '""')}"`;
    await writeFile(
      file,
      `emu_code,model,bureau,train_depot,depot,alias\n` +
        `${HOSTILE_UNIT},CR400AF,北京局,北京动车段,${quote(HOSTILE_DEPOT)},${quote(HOSTILE_ALIAS)}\n`,
    );
    await importFleet(db, file);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
