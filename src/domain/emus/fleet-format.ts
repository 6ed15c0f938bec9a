import { readFileHead, type FileHead } from '../ingest/formats/observation-format.js';

/**
 * An input format of `emutrack import-fleet`: how to recognise a file of it from its first
 * bytes, and how to read it into rows of fleet cells, keyed by the fleet CSV's column names
 * (emu_code, model, bureau, ...: fleet-columns.ts) as text, so that every format's rows are
 * checked and stored alike (import-fleet.ts).
 */
export interface FleetFormat {
  /** How the command's output names the format. */
  readonly name: string;
  detect(head: FileHead): boolean;
  read(file: string, context: FleetFormatContext): AsyncIterable<FleetRow>;
}

export interface FleetFormatContext {
  /** The file as reported. */
  name: string;
  /** The largest JSON array file read (bounded-json.ts). */
  maxJsonBytes?: number;
}

/**
 * A row: its line, raw text and cells (a cell absent or "" leaves the stored value alone), or
 * why it is refused. `ignored`: the row's fields that are not fleet columns, as written.
 */
export type FleetRow =
  | { line: number; raw: string; cells: Record<string, string>; ignored?: readonly string[] }
  | { line: number; raw: string; field: string | null; error: string };

export { readFileHead };
