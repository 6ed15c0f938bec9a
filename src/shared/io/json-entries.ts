import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { EmutrackError } from '../errors/emutrack-error.js';

/**
 * One entry of a JSON-entries file, named the way a person finds it: by its index in a JSON
 * array (a one-line array has every entry on line 1), by its line in NDJSON.
 */
export interface JsonEntry {
  /** 1-based line on which the entry starts. */
  line: number;
  /** 0-based index in a JSON array; absent for NDJSON and for a file holding one object. */
  index?: number;
  /** "entry 3 (line 1)" in an array, "line 12" otherwise: how messages name it. */
  where: string;
  raw: string;
  value?: unknown;
  /** Why the text is not JSON. */
  error?: string;
}

/** A file that cannot be read at all (as opposed to a bad entry in it). */
export class UnreadableJsonEntriesError extends EmutrackError {
  constructor(
    readonly file: string,
    reason: string,
    /** The system error code (ENOENT, EISDIR, EACCES, ...). */
    readonly systemCode: string = 'EIO',
  ) {
    super('json_entries_unreadable', `${file}: ${reason}`);
  }
}

function atLine(line: number, raw: string, index?: number): JsonEntry {
  const where = index === undefined ? `line ${line}` : `entry ${index} (line ${line})`;
  const base = index === undefined ? { line, where, raw } : { line, index, where, raw };
  try {
    return { ...base, value: JSON.parse(raw) as unknown };
  } catch (err) {
    return { ...base, error: `not valid JSON: ${(err as Error).message}` };
  }
}

/**
 * The elements of a top-level JSON array starting at `start`, each with its index and the line
 * it starts on, split by a scan that follows strings and brackets: an element that is not valid
 * JSON is reported alone and the others still parse.
 */
function* splitJsonArray(text: string, start: number, startLine: number): Generator<JsonEntry> {
  let line = startLine;
  let i = start + 1;
  let index = 0;
  const skipSpace = () => {
    while (i < text.length && /\s/.test(text[i]!)) {
      if (text[i] === '\n') line++;
      i++;
    }
  };
  for (;;) {
    skipSpace();
    if (i >= text.length) {
      yield {
        line,
        index,
        where: `entry ${index} (line ${line})`,
        raw: '',
        error: 'the JSON array is not closed (missing "]")',
      };
      return;
    }
    if (text[i] === ']') return;
    const from = i;
    const fromLine = line;
    let depth = 0;
    let inString = false;
    for (; i < text.length; i++) {
      const c = text[i]!;
      if (c === '\n') line++;
      if (inString) {
        if (c === '\\') i++;
        else if (c === '"') inString = false;
      } else if (c === '"') inString = true;
      else if (c === '{' || c === '[') depth++;
      else if (c === '}' || c === ']') {
        if (depth === 0) break;
        depth--;
      } else if (c === ',' && depth === 0) break;
    }
    const raw = text.slice(from, i).trim();
    if (raw === '')
      yield {
        line: fromLine,
        index,
        where: `entry ${index} (line ${fromLine})`,
        raw,
        error: 'empty array element',
      };
    else yield atLine(fromLine, raw, index);
    index++;
    if (text[i] === ',') i++;
  }
}

/** The line a JSON.parse error points at ("line 4", "position 123"; not every Node says). */
function lineOfJsonError(text: string, message: string, firstLine: number): number {
  const said = /line (\d+)/.exec(message);
  if (said) return firstLine + Number(said[1]) - 1;
  const m = /position (\d+)/.exec(message);
  if (!m) return firstLine;
  let line = firstLine;
  for (let i = 0; i < Number(m[1]) && i < text.length; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

/**
 * Reads a file of JSON entries, UTF-8 with an optional byte-order mark, in whichever form it
 * comes; the first character that is not white space decides:
 *
 * - `[`: a JSON array; every element is an entry, named by its index (from 0) and the line it
 *   starts on. An element that is not JSON is an entry with `error`; the others still parse.
 * - `{` on a first line that is not JSON by itself: one object over several lines (a
 *   pretty-printed file): one entry, or one `error` naming the line the parser stopped at (or,
 *   when the lines after it are JSON of their own, NDJSON with a broken first line).
 * - anything else: NDJSON, one entry per line that is not blank, named by its line; streamed,
 *   so a large file is never held whole.
 */
export async function* readJsonEntries(file: string): AsyncGenerator<JsonEntry> {
  const unreadable = (err: unknown) => {
    const code = (err as NodeJS.ErrnoException).code ?? 'EIO';
    return new UnreadableJsonEntriesError(
      file,
      code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a directory' : String(err),
      code,
    );
  };
  const stream = createReadStream(file, { encoding: 'utf8' });
  const opened = new Promise<void>((resolve, reject) => {
    stream.once('open', () => resolve());
    stream.once('error', reject);
  });
  try {
    await opened;
  } catch (err) {
    throw unreadable(err);
  }
  const lines = createInterface({ input: stream, crlfDelay: Infinity });
  let n = 0;
  /** Set once the form is known to be a whole document (array or one object). */
  let whole: { firstLine: number; text: string[] } | undefined;
  let yielded = false;
  try {
    for await (let text of lines) {
      n++;
      if (n === 1 && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      if (whole) {
        whole.text.push(text);
        continue;
      }
      const trimmed = text.trim();
      if (trimmed === '') continue;
      if (trimmed.startsWith('[')) {
        whole = { firstLine: n, text: [text] };
        continue;
      }
      const entry = atLine(n, trimmed);
      if (!yielded && entry.error !== undefined && trimmed.startsWith('{')) {
        whole = { firstLine: n, text: [text] };
        continue;
      }
      yielded = true;
      yield entry;
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code) throw unreadable(err);
    throw err;
  }
  if (!whole) return;
  const text = whole.text.join('\n');
  const start = text.search(/\S/);
  if (text[start] === '[') {
    yield* splitJsonArray(text, start, whole.firstLine);
    return;
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    // NDJSON whose first line is broken: its other lines are objects of their own.
    const first = whole.firstLine;
    const lines = whole.text.map((l, k) => atLine(first + k, l.trim()));
    if (lines.slice(1).some((l) => l.raw !== '' && l.error === undefined)) {
      for (const l of lines) if (l.raw !== '') yield l;
      return;
    }
    const message = (err as Error).message;
    const line = lineOfJsonError(text, message, first);
    yield { line, where: `line ${line}`, raw: text, error: `not valid JSON: ${message}` };
    return;
  }
  yield { line: whole.firstLine, where: `line ${whole.firstLine}`, raw: text, value };
}
