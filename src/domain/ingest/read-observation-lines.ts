import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { parse as parseCsv } from 'csv-parse';
import { EmutrackError } from '../../shared/errors/emutrack-error.js';

/** One line of an input file: its 1-based line number, raw text, and parsed value or parse error. */
export type InputLine =
  | { line: number; raw: string; value: Record<string, unknown> }
  | { line: number; raw: string; error: string };

export type InputFormat = 'ndjson' | 'csv';

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

/** By extension (.ndjson/.jsonl/.json, .csv); otherwise by the first non-blank character. */
export async function detectFormat(file: string): Promise<InputFormat> {
  if (/\.(nd)?jsonl?$|\.ndjson$|\.json$/i.test(file)) return 'ndjson';
  if (/\.csv$/i.test(file)) return 'csv';
  const fh = await open(file, 'r');
  try {
    const { buffer, bytesRead } = await fh.read(Buffer.alloc(512), 0, 512, 0);
    const head = buffer
      .subarray(0, bytesRead)
      .toString('utf8')
      .replace(/^\uFEFF/, '')
      .trimStart();
    return head.startsWith('{') ? 'ndjson' : 'csv';
  } finally {
    await fh.close();
  }
}

async function* ndjsonLines(file: string): AsyncGenerator<InputLine> {
  const rl = createInterface({
    input: createReadStream(file, { encoding: 'utf8' }),
    crlfDelay: Infinity,
  });
  let line = 0;
  for await (let raw of rl) {
    line++;
    if (line === 1) raw = raw.replace(/^\uFEFF/, '');
    if (raw.trim() === '') continue;
    try {
      yield { line, raw, value: JSON.parse(raw) as Record<string, unknown> };
    } catch (err) {
      yield { line, raw, error: `not valid JSON: ${(err as Error).message}` };
    }
  }
}

async function* csvLines(file: string): AsyncGenerator<InputLine> {
  const skipped: InputLine[] = [];
  let header: string[] | undefined;
  const parser = createReadStream(file).pipe(
    parseCsv({
      bom: true,
      columns: (h: string[]) => {
        header = h.map((c) => c.trim());
        const missing = REQUIRED_CSV_COLUMNS.filter((c) => !header!.includes(c));
        if (missing.length > 0) {
          throw new UnreadableFileError(
            file,
            `CSV header lacks column(s) ${missing.join(', ')} (line 1)`,
          );
        }
        return header;
      },
      info: true,
      raw: true,
      skip_empty_lines: true,
      relax_column_count: true,
      skip_records_with_error: true,
    }),
  );
  parser.on('skip', (err: Error & { lines?: number; raw?: string }) => {
    skipped.push({
      line: err.lines ?? 0,
      raw: err.raw ?? '',
      error: `unreadable CSV: ${err.message}`,
    });
  });
  try {
    for await (const rec of parser as AsyncIterable<{
      record: Record<string, string>;
      info: { lines: number; columns: unknown[] | boolean };
      raw: string;
    }>) {
      while (skipped.length > 0) yield skipped.shift()!;
      const raw = rec.raw.replace(/\r?\n$/, '');
      const line = rec.info.lines;
      const values = Object.values(rec.record);
      if (header && values.length !== header.length) {
        yield {
          line,
          raw,
          error: `expected ${header.length} columns as in the header, found ${values.length}`,
        };
        continue;
      }
      yield { line, raw, value: rec.record };
    }
  } catch (err) {
    if (err instanceof UnreadableFileError) throw err;
    throw new UnreadableFileError(file, (err as Error).message);
  }
  while (skipped.length > 0) yield skipped.shift()!;
}

export async function* readObservationLines(
  file: string,
  format?: InputFormat,
): AsyncGenerator<InputLine> {
  const fmt = format ?? (await detectFormat(file));
  yield* fmt === 'ndjson' ? ndjsonLines(file) : csvLines(file);
}
