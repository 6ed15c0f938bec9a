import { hash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { sha256Words } from '../../src/ingest/sha256-words.js';

const hex = (words: Int32Array) =>
  [...words].map((w) => (w >>> 0).toString(16).padStart(8, '0')).join('');

describe('sha256Words', () => {
  it('gives node:crypto sha256 on every length up to 300 bytes, text and random', () => {
    const msg = new Uint8Array(512);
    const out = new Int32Array(8);
    for (let length = 0; length <= 300; length++) {
      for (const bytes of [
        Buffer.from(Array.from({ length }, (_, i) => 32 + ((i * 7 + length) % 95))),
        randomBytes(length),
      ]) {
        // Bytes after the message are overwritten (padding): leave garbage there.
        msg.fill(0xa5);
        msg.set(bytes);
        sha256Words(msg, length, out);
        expect(hex(out)).toBe(hash('sha256', bytes, 'hex'));
      }
    }
  });
});
