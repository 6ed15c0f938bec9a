import { createReadStream } from 'node:fs';
import { parse as parseCsv } from 'csv-parse';
import { FLEET_COLUMNS } from './fleet-columns.js';
import { FleetFileError } from './fleet-file-error.js';
import type { FleetFormat, FleetRow } from './fleet-format.js';

/**
 * The fleet CSV: a header row with emu_code and any of the fleet columns. Taken for any file
 * whose first line reads as a CSV header (or that is empty), so that a header without
 * emu_code is refused for that.
 */
export const fleetCsvFormat: FleetFormat = {
  name: 'fleet-csv',
  detect: (head) => head.text === '' || head.csvHeader.length > 0 || head.firstLine === 'emu_code',
  read: readFleetCsv,
};

async function* readFleetCsv(file: string, { name }: { name: string }): AsyncGenerator<FleetRow> {
  let ignored: string[] = [];
  const parser = createReadStream(file).pipe(
    parseCsv({
      bom: true,
      info: true,
      raw: true,
      skip_empty_lines: true,
      relax_column_count: true,
      columns: (header: string[]) => {
        const h = header.map((c) => c.trim());
        if (!h.includes('emu_code'))
          throw new FleetFileError(name, 'CSV header lacks the required column emu_code (line 1)');
        ignored = h.filter((c) => c !== 'emu_code' && c !== 'alias' && !(c in FLEET_COLUMNS));
        return h;
      },
    }),
  );
  try {
    for await (const rec of parser as AsyncIterable<{
      record: Record<string, string>;
      info: { lines: number };
      raw: string;
    }>) {
      yield {
        line: rec.info.lines,
        raw: rec.raw.replace(/\r?\n$/, ''),
        cells: rec.record,
        ignored,
      };
    }
  } catch (err) {
    if (err instanceof FleetFileError) throw err;
    throw new FleetFileError(name, (err as Error).message);
  }
}
