/**
 * The dedup keys of a chunk, each as 8 words (the service day, then the first 224 bits of the
 * sha256), in an open-addressing table: the same comparison as the keys' text, without keeping
 * a string per row alive through the chunk.
 */
export class DedupKeys {
  private words: Int32Array;
  private filled: Uint8Array;
  private size = 0;

  constructor(slots: number) {
    this.words = new Int32Array(slots * 8);
    this.filled = new Uint8Array(slots);
  }

  /** Empties the table for another chunk. */
  clear(): void {
    this.filled.fill(0);
    this.size = 0;
  }

  /** Adds `key` (8 words); false when it was there already. */
  add(key: Int32Array): boolean {
    if ((this.size + 1) * 2 > this.filled.length) this.grow();
    return this.put(key);
  }

  private put(key: Int32Array): boolean {
    const words = this.words;
    const mask = this.filled.length - 1;
    for (let i = (key[1]! ^ key[0]!) & mask; ; i = (i + 1) & mask) {
      const at = i * 8;
      if (this.filled[i] === 0) {
        for (let k = 0; k < 8; k++) words[at + k] = key[k]!;
        this.filled[i] = 1;
        this.size++;
        return true;
      }
      let k = 0;
      while (k < 8 && words[at + k] === key[k]) k++;
      if (k === 8) return false;
    }
  }

  private grow(): void {
    const { words, filled } = this;
    this.words = new Int32Array(words.length * 2);
    this.filled = new Uint8Array(filled.length * 2);
    this.size = 0;
    const key = new Int32Array(8);
    for (let i = 0; i < filled.length; i++) {
      if (filled[i] === 0) continue;
      for (let k = 0; k < 8; k++) key[k] = words[i * 8 + k]!;
      this.put(key);
    }
  }
}

function hexValue(c: number): number {
  return c <= 0x39 ? c - 0x30 : (c | 0x20) - 0x57;
}

/** Eight hex digits of `hex` from `at`, as a 32-bit word. */
export function hexWord(hex: string, at: number): number {
  let w = 0;
  for (let k = 0; k < 8; k++) w = (w << 4) | hexValue(hex.charCodeAt(at + k));
  return w;
}
