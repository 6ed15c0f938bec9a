import { createReadStream } from 'node:fs';
import { parse as parseCsv } from 'csv-parse';
import { UnreadableFileError, type InputLine } from '../read-observation-lines.js';

/**
 * The rows of a CSV file with a header row, each keyed by the header's (trimmed) names, with
 * its line number and raw text. `checkHeader` returns why the header will not do, if it will
 * not (the file is then unreadable). A row with more or fewer cells than the header, or that
 * is not CSV at all (an unclosed quote), is an error line; the rows after it still come.
 */
export async function* csvRows(
  file: string,
  checkHeader: (header: readonly string[]) => string | undefined,
): AsyncGenerator<InputLine> {
  const skipped: InputLine[] = [];
  let header: string[] | undefined;
  const parser = createReadStream(file).pipe(
    parseCsv({
      bom: true,
      columns: (h: string[]) => {
        header = h.map((c) => c.trim());
        const why = checkHeader(header);
        if (why !== undefined) throw new UnreadableFileError(file, `${why} (line 1)`);
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
      info: { lines: number; error?: { record?: unknown[] } };
      raw: string;
    }>) {
      while (skipped.length > 0) yield skipped.shift()!;
      const raw = rec.raw.replace(/\r?\n$/, '');
      const line = rec.info.lines;
      // The record keeps the header's columns only: a row's surplus cells are counted from
      // the parser's note on the row.
      const found = rec.info.error?.record?.length ?? Object.values(rec.record).length;
      if (header && found !== header.length) {
        yield {
          line,
          raw,
          error: `expected ${header.length} columns as in the header, found ${found}`,
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
