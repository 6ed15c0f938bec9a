import { readFile } from 'node:fs/promises';
import { readObservationLines, type InputLine } from '../ingest/read-observation-lines.js';

/**
 * The timetables of one file, each with the line it starts on and its raw text:
 *
 * - `.ndjson` / `.jsonl`: one timetable per line, streamed;
 * - `.json`: one timetable, the whole file (pretty-printed or not; line 1, the file's text as
 *   raw). A .json file whose lines are each a JSON object is read as NDJSON.
 */
export async function* readTimetableFile(file: string): AsyncGenerator<InputLine> {
  if (!/\.json$/i.test(file)) {
    yield* readObservationLines(file, 'ndjson');
    return;
  }
  const text = (await readFile(file, 'utf8')).replace(/^\uFEFF/, '');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    if (looksLikeNdjson(text)) {
      yield* readObservationLines(file, 'ndjson');
      return;
    }
    const message = (err as Error).message;
    yield { line: lineOfJsonError(text, message), raw: text, error: `not valid JSON: ${message}` };
    return;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    yield {
      line: 1,
      raw: text,
      error: 'expected one timetable object per .json file (or one per line, NDJSON)',
    };
    return;
  }
  yield { line: 1, raw: text, value: value as Record<string, unknown> };
}

function looksLikeNdjson(text: string): boolean {
  const lines = text.split(/\r?\n/).filter((l) => l.trim() !== '');
  if (lines.length < 2) return false;
  try {
    const first: unknown = JSON.parse(lines[0]!);
    return typeof first === 'object' && first !== null && !Array.isArray(first);
  } catch {
    return false;
  }
}

/** The line a JSON.parse error points at ("line 4", "position 123"; not every Node says), else 1. */
function lineOfJsonError(text: string, message: string): number {
  const said = /line (\d+)/.exec(message);
  if (said) return Number(said[1]);
  const m = /position (\d+)/.exec(message);
  if (!m) return 1;
  const pos = Number(m[1]);
  let line = 1;
  for (let i = 0; i < pos && i < text.length; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}
