import { readFile } from 'node:fs/promises';

/** One entry of an official-circulation file: where it starts, its text, and its value. */
export interface OfficialFileItem {
  /** 1-based line on which the entry starts. */
  line: number;
  raw: string;
  value?: unknown;
  /** Why the text is not JSON. */
  error?: string;
}

export class UnreadableOfficialFileError extends Error {
  constructor(file: string, reason: string) {
    super(`${file}: ${reason}`);
    this.name = 'UnreadableOfficialFileError';
  }
}

function parseItem(line: number, raw: string): OfficialFileItem {
  try {
    return { line, raw, value: JSON.parse(raw) as unknown };
  } catch (err) {
    return { line, raw, error: `not JSON: ${(err as Error).message}` };
  }
}

/**
 * The elements of a top-level JSON array, each with the line it starts on, split by a scan
 * that follows strings and brackets: an element that is not valid JSON is reported alone and
 * the others still parse.
 */
function splitJsonArray(text: string, start: number): OfficialFileItem[] {
  const items: OfficialFileItem[] = [];
  let line = 1;
  for (let k = 0; k < start; k++) if (text.charCodeAt(k) === 10) line++;
  let i = start + 1;
  const skipSpace = () => {
    while (i < text.length && /\s/.test(text[i]!)) {
      if (text[i] === '\n') line++;
      i++;
    }
  };
  while (true) {
    skipSpace();
    if (i >= text.length) {
      items.push({ line, raw: '', error: 'the JSON array is not closed (missing "]")' });
      return items;
    }
    if (text[i] === ']') return items;
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
    if (raw === '') items.push({ line: fromLine, raw, error: 'empty array element' });
    else items.push(parseItem(fromLine, raw));
    if (text[i] === ',') i++;
  }
}

/**
 * Reads a file of official circulation entries: a JSON array of objects, or NDJSON (one object
 * per line). UTF-8, optional byte-order mark. The first character decides: '[' is an array.
 */
export async function readOfficialFile(file: string): Promise<OfficialFileItem[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new UnreadableOfficialFileError(
      file,
      code === 'ENOENT' ? 'no such file' : (err as Error).message,
    );
  }
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const first = text.search(/\S/);
  if (first < 0) return [];
  if (text[first] === '[') return splitJsonArray(text, first);
  const items: OfficialFileItem[] = [];
  const lines = text.split('\n');
  for (let k = 0; k < lines.length; k++) {
    const raw = lines[k]!.trim();
    if (raw !== '') items.push(parseItem(k + 1, raw));
  }
  return items;
}
