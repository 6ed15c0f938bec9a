import { REQUIRED_CSV_COLUMNS } from '../read-observation-lines.js';
import { csvRows } from './csv-rows.js';
import type { ObservationFormat } from './observation-format.js';

/** The observation CSV: a header naming the NDJSON fields (observedAt, trainCode, ...), any order. */
export const observationCsvFormat: ObservationFormat = {
  name: 'csv',
  // Any header naming one of the fields is taken for this format, so that one lacking the
  // others is refused for what it lacks rather than as unknown.
  detect: (head) => REQUIRED_CSV_COLUMNS.some((c) => head.csvHeader.includes(c)),
  read: (file) =>
    csvRows(file, (header) => {
      const missing = REQUIRED_CSV_COLUMNS.filter((c) => !header.includes(c));
      return missing.length > 0 ? `CSV header lacks column(s) ${missing.join(', ')}` : undefined;
    }),
};
