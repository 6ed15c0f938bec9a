const encoder = new TextEncoder();

/**
 * A chunk's COPY text, written as bytes into one growing array: rows of scanned lines are
 * copied from the block's bytes, others are encoded from their strings. Nothing survives a row
 * but the bytes.
 */
export class RowBytes {
  bytes: Uint8Array;
  length = 0;

  constructor(output: number | ArrayBuffer) {
    this.bytes = typeof output === 'number' ? new Uint8Array(output) : new Uint8Array(output);
  }

  reserve(n: number): void {
    if (this.length + n <= this.bytes.length) return;
    const grown = new Uint8Array(Math.max(this.length + n, this.bytes.length * 2));
    grown.set(this.bytes.subarray(0, this.length));
    this.bytes = grown;
  }

  /** Copies src[start..end); the caller reserved room. */
  copy(src: Uint8Array, start: number, end: number): void {
    const out = this.bytes;
    let at = this.length;
    for (let i = start; i < end; i++) out[at++] = src[i]!;
    this.length = at;
  }

  text(s: string): void {
    // UTF-8 takes at most 3 bytes per UTF-16 code unit.
    this.reserve(s.length * 3);
    this.length += encoder.encodeInto(s, this.bytes.subarray(this.length)).written;
  }

  /** The bytes; a view of a buffer of their own (transferable). */
  finish(): Uint8Array {
    return this.bytes.subarray(0, this.length);
  }
}
