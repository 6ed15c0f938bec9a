import { open } from 'node:fs/promises';
import type { InputLine } from '../read-observation-lines.js';

/**
 * An input format of `emutrack ingest`: how to recognise a file of it from its first bytes, and
 * how to read it into observation lines (objects with the fields of an NDJSON sighting:
 * observedAt, trainCode, emuCode, source, ref?, serviceDate?). Every format's lines then take the
 * same path (validation, dedup, rejects, stale days): a new format is one file and one entry in
 * the list of formats.ts.
 */
export interface ObservationFormat {
  /** How the command's output names the format. */
  readonly name: string;
  detect(head: FileHead): boolean;
  read(file: string, context: FormatContext): AsyncIterable<InputLine>;
  /**
   * The file's own names of the observation fields its lines fill (emuCode -> emu_no), so that a
   * reject names the column the reader wrote in the file.
   */
  readonly fieldNames?: Readonly<Record<string, string>>;
}

export interface FormatContext {
  /** The file as reported (relative to the ingested directory). */
  name: string;
  /** The service day given on the command line (YYYYMMDD), for formats whose rows carry none. */
  serviceDate?: string;
  /** The largest JSON array file read (bounded-json.ts); default MAX_JSON_ARRAY_BYTES. */
  maxJsonBytes?: number;
}

/** The start of a file, as detection reads it. */
export interface FileHead {
  /** Up to HEAD_BYTES of the file, the byte-order mark and leading white space removed. */
  text: string;
  /** Its first line, trimmed. */
  firstLine: string;
  /** The first line as CSV header names (trimmed, unquoted); [] when it has no comma or is JSON. */
  csvHeader: string[];
}

const HEAD_BYTES = 64 * 1024;

export async function readFileHead(file: string): Promise<FileHead> {
  const fh = await open(file, 'r');
  let bytes: Buffer;
  try {
    const { buffer, bytesRead } = await fh.read(Buffer.alloc(HEAD_BYTES), 0, HEAD_BYTES, 0);
    bytes = buffer.subarray(0, bytesRead);
  } finally {
    await fh.close();
  }
  const text = bytes
    .toString('utf8')
    .replace(/^\uFEFF/, '')
    .trimStart();
  const firstLine = (/^[^\r\n]*/.exec(text)?.[0] ?? '').trim();
  const csvHeader =
    firstLine.includes(',') && !/^[[{]/.test(firstLine)
      ? firstLine.split(',').map((c) => c.trim().replace(/^"(.*)"$/, '$1'))
      : [];
  return { text, firstLine, csvHeader };
}

/** Whether a CSV header names exactly these columns, in any order. */
export function headerIs(header: readonly string[], columns: readonly string[]): boolean {
  return header.length === columns.length && columns.every((c) => header.includes(c));
}
