import { EmutrackError } from '../../shared/errors/emutrack-error.js';
import { ymdOfServiceDay } from '../../shared/time/service-day.js';

/** Postgres SQLSTATEs of a server out of room: disk_full, insufficient_resources, out_of_memory. */
const NO_ROOM = new Set(['53100', '53000', '53200']);

/** Whether a database error says the server has no room left to write. */
export function isStorageFull(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && NO_ROOM.has(code);
}

/**
 * A day's export could not be stored because the database has no room left. The statement
 * that renders and stores an export is one statement, so the stored export of that day (if
 * any) is the one it was before.
 */
export class ExportStorageFullError extends EmutrackError {
  constructor(serviceDay: number, cause: unknown) {
    super(
      'export_storage_full',
      `export of ${ymdOfServiceDay(serviceDay)} not stored: the database has no room left ` +
        `(${(cause as Error).message}); the stored export of that day is unchanged`,
      { cause },
    );
  }
}
