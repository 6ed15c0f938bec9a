import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  readJsonEntries,
  UnreadableJsonEntriesError,
  type JsonEntry,
} from '../../src/shared/io/json-entries.js';

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'emutrack-json-entries-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

async function read(name: string, text: string): Promise<JsonEntry[]> {
  const file = path.join(dir, name);
  await writeFile(file, text);
  const out: JsonEntry[] = [];
  for await (const e of readJsonEntries(file)) out.push(e);
  return out;
}

const brief = (e: JsonEntry) => [e.where, e.value ?? e.error?.slice(0, 14)];

describe('readJsonEntries: a JSON array or NDJSON, with line numbers and a byte-order mark', () => {
  it('names array entries by index (and the line they start on)', async () => {
    expect((await read('a.json', '\uFEFF[{"a":1},{"b":2}, 3]')).map(brief)).toEqual([
      ['entry 0 (line 1)', { a: 1 }],
      ['entry 1 (line 1)', { b: 2 }],
      ['entry 2 (line 1)', 3],
    ]);
    expect(
      (await read('b.json', '\n[\n  {"a":1},\n  {oops},\n  {"c":"]"}\n]\n')).map(brief),
    ).toEqual([
      ['entry 0 (line 3)', { a: 1 }],
      ['entry 1 (line 4)', 'not valid JSON'],
      ['entry 2 (line 5)', { c: ']' }],
    ]);
  });

  it('names NDJSON entries by line, skipping blank ones, whatever the file is called', async () => {
    const text = '\uFEFF{"a":1}\r\n\n{"b":\n{"c":3}\n';
    expect((await read('c.json', text)).map(brief)).toEqual([
      ['line 1', { a: 1 }],
      ['line 3', 'not valid JSON'],
      ['line 4', { c: 3 }],
    ]);
  });

  it('reads one pretty-printed object whole, or says on which line it breaks', async () => {
    expect((await read('d.json', '{\n  "a": [1,\n 2]\n}\n')).map(brief)).toEqual([
      ['line 1', { a: [1, 2] }],
    ]);
    const broken = await read('e.json', '{\n  "a": [1,\n}\n');
    expect(broken).toHaveLength(1);
    expect(broken[0]!.error).toMatch(/^not valid JSON/);
    expect(await read('f.json', ' \n')).toEqual([]);
  });

  it('a file it cannot open is an error of its own, with the system code', async () => {
    const missing = readJsonEntries(path.join(dir, 'missing.json'));
    await expect(missing.next()).rejects.toMatchObject({
      name: 'UnreadableJsonEntriesError',
      code: 'json_entries_unreadable',
      systemCode: 'ENOENT',
    });
    await expect(readJsonEntries(dir).next()).rejects.toBeInstanceOf(UnreadableJsonEntriesError);
  });
});
