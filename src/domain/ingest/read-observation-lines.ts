import { EmutrackError } from '../../shared/errors/emutrack-error.js';

/**
 * One line of an input file: its 1-based line number, raw text, and the observation it holds
 * (the fields of an NDJSON sighting) or why it was refused (naming the field when one is to
 * blame). Each input format (formats/) reads its files into these.
 */
export type InputLine =
  | { line: number; raw: string; value: Record<string, unknown> }
  | { line: number; raw: string; error: string; field?: string };

/** A file that cannot be read as observations at all (as opposed to a bad line in it). */
export class UnreadableFileError extends EmutrackError {
  constructor(
    readonly file: string,
    reason: string,
  ) {
    super('ingest_unreadable_file', `${file}: ${reason}`);
  }
}

export const REQUIRED_CSV_COLUMNS = ['observedAt', 'trainCode', 'emuCode', 'source'] as const;
