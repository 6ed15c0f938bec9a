import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import type { InputLine } from '../read-observation-lines.js';
import type { ObservationFormat } from './observation-format.js';

/**
 * NDJSON: one observation object per line. An empty file is one too (of no lines), and so is a
 * file whose first line is broken when a later line of its head is an object: the broken line
 * is rejected and the others read. Large inputs are parsed by worker threads instead
 * (ndjson-block-parser.ts, which reads lines the same way).
 */
export const ndjsonFormat: ObservationFormat = {
  name: 'ndjson',
  detect: (head) =>
    head.text === '' || head.text.startsWith('{') || /^[^[][^\n]*\n(?:.*\n)*?\s*\{/.test(head.text),
  read: ndjsonLines,
};

async function* ndjsonLines(file: string): AsyncGenerator<InputLine> {
  const rl = createInterface({
    input: createReadStream(file, { encoding: 'utf8' }),
    crlfDelay: Infinity,
  });
  let line = 0;
  for await (let raw of rl) {
    line++;
    if (line === 1) raw = raw.replace(/^\uFEFF/, '');
    if (raw.trim() === '') continue;
    try {
      yield { line, raw, value: JSON.parse(raw) as Record<string, unknown> };
    } catch (err) {
      yield { line, raw, error: `not valid JSON: ${(err as Error).message}` };
    }
  }
}
