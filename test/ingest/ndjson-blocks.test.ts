import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BlockBuffers, readLineBlocks } from '../../src/domain/ingest/ndjson-blocks.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'emutrack-blocks-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Line breaks as the line reader counts them: \r\n, \n or a lone \r. */
const breaks = (b: Buffer) => b.toString('latin1').split(/\r\n|\n|\r/).length - 1;

describe('readLineBlocks', () => {
  it('cuts a file into blocks of whole lines, numbered as the line reader numbers them, reusing given-back buffers', async () => {
    let seed = 7;
    const rand = (n: number) => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return (seed >>> 8) % n;
    };
    for (const [size, maxLines] of [
      [0, 3],
      [1, 1],
      [5_000, 1],
      [200_000, 7],
      [3_000_000, 10_000],
      [3_000_000, 250],
      [6_000_000, 100_000],
    ] as const) {
      const parts: string[] = [];
      let length = 0;
      while (length < size) {
        // Lines of 0 to ~300 bytes (now and then 100 kB), ended by \n, \r\n or a lone \r.
        const line = 'x'.repeat(rand(50) === 0 ? 100_000 : rand(300));
        const end = ['\n', '\n', '\n', '\r\n', '\r'][rand(5)]!;
        parts.push(line + end);
        length += line.length + end.length;
      }
      let text = parts.join('');
      if (rand(2) === 0) text = text.replace(/[\r\n]+$/, ''); // no final line break
      const file = path.join(dir, `f-${size}-${maxLines}.ndjson`);
      await writeFile(file, text);

      const buffers = new BlockBuffers();
      const got: Buffer[] = [];
      let line = 1;
      for await (const block of readLineBlocks(file, maxLines, buffers)) {
        const bytes = Buffer.from(block.bytes);
        expect(block.bytes.byteOffset).toBe(0);
        expect(block.firstLine).toBe(line);
        expect(bytes.toString('latin1').split('\n').length - 1).toBeLessThanOrEqual(maxLines);
        line += breaks(bytes);
        got.push(bytes);
        // Given back dirty, as a parse thread gives it back.
        new Uint8Array(block.bytes.buffer).fill(0x0a);
        buffers.give(block.bytes.buffer as ArrayBuffer);
      }
      expect(Buffer.concat(got).toString('latin1')).toBe(text);
      // Every block but the last ends right after its maxLines-th \n.
      for (const bytes of got.slice(0, -1)) {
        expect(bytes[bytes.length - 1]).toBe(0x0a);
        expect(bytes.toString('latin1').split('\n').length - 1).toBe(maxLines);
      }
    }
  }, 60_000);

  it('reads small files whole: one byte, no final newline, blank lines, lone CRs', async () => {
    for (const text of ['x', '\n', '\r', 'a\nb', 'a\r\nb\rc\n\n', '\n\n\nz']) {
      const file = path.join(dir, 'small.ndjson');
      await writeFile(file, text);
      for (const maxLines of [1, 2, 10]) {
        const blocks: { text: string; firstLine: number }[] = [];
        for await (const b of readLineBlocks(file, maxLines))
          blocks.push({ text: Buffer.from(b.bytes).toString('latin1'), firstLine: b.firstLine });
        expect(blocks.map((b) => b.text).join('')).toBe(text);
        let line = 1;
        for (const b of blocks) {
          expect(b.firstLine).toBe(line);
          line += breaks(Buffer.from(b.text, 'latin1'));
        }
      }
    }
  });
});
