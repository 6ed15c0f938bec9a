import { csvRows } from './csv-rows.js';
import { headerIs, type ObservationFormat } from './observation-format.js';
import { RAILRE_COLUMNS, RAILRE_FIELD_NAMES, railreLine } from './railre-row.js';

/** rail.re rows as CSV: header date,emu_no,train_no (any order). */
export const railreCsvFormat: ObservationFormat = {
  name: 'railre-csv',
  detect: (head) => headerIs(head.csvHeader, RAILRE_COLUMNS),
  fieldNames: RAILRE_FIELD_NAMES,
  async *read(file) {
    for await (const row of csvRows(file, () => undefined))
      yield 'error' in row ? row : railreLine(row.line, row.raw, row.value);
  },
};
