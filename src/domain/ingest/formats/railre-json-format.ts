import { jsonArrayTooLarge } from '../../../shared/io/bounded-json.js';
import { readJsonEntries } from '../../../shared/io/json-entries.js';
import { UnreadableFileError } from '../read-observation-lines.js';
import type { ObservationFormat } from './observation-format.js';
import { RAILRE_FIELD_NAMES, railreLine } from './railre-row.js';

/**
 * rail.re rows as a JSON array of {"date", "emu_no", "train_no"} objects, recognised by an
 * array whose start names emu_no (or an empty array). The array is parsed whole, so a file over
 * the size limit is refused (bounded-json.ts); each element is a line, numbered by the line it
 * starts on, and an element that is not JSON is refused alone.
 */
export const railreJsonFormat: ObservationFormat = {
  name: 'railre-json',
  detect: (head) => /^\[\s*\]/.test(head.text) || /^\[\s*\{[^]*?"emu_no"\s*:/.test(head.text),
  fieldNames: RAILRE_FIELD_NAMES,
  async *read(file, context) {
    const tooLarge = await jsonArrayTooLarge(file, context.maxJsonBytes);
    if (tooLarge !== undefined) throw new UnreadableFileError(context.name, tooLarge);
    for await (const e of readJsonEntries(file))
      yield e.error !== undefined
        ? { line: e.line, raw: e.raw, error: e.error }
        : railreLine(e.line, e.raw, e.value);
  },
};
