import type { InputLine } from '../ingest/read-observation-lines.js';
import { readJsonEntries } from '../../shared/io/json-entries.js';

/**
 * The timetables of one file, each with the line it starts on and its raw text, read by
 * readJsonEntries (src/shared/io): NDJSON (one timetable per line, streamed; `.ndjson`, `.jsonl`), one
 * timetable object (a `.json` file, pretty-printed or not), or a JSON array of timetables (an
 * element named by its index in messages). A byte-order mark is dropped.
 */
export async function* readTimetableFile(file: string): AsyncGenerator<InputLine> {
  for await (const entry of readJsonEntries(file)) {
    if (entry.error !== undefined) {
      yield { line: entry.line, raw: entry.raw, error: prefixed(entry.index, entry.error) };
    } else if (
      typeof entry.value !== 'object' ||
      entry.value === null ||
      Array.isArray(entry.value)
    ) {
      yield {
        line: entry.line,
        raw: entry.raw,
        error: prefixed(entry.index, 'expected a timetable object'),
      };
    } else {
      yield { line: entry.line, raw: entry.raw, value: entry.value as Record<string, unknown> };
    }
  }
}

/** An array element's problem names the element ("entry 3: ..."): its line may hold them all. */
function prefixed(index: number | undefined, reason: string): string {
  return index === undefined ? reason : `entry ${index}: ${reason}`;
}
