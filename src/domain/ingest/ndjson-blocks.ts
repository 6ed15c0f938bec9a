import { open } from 'node:fs/promises';

/**
 * A run of whole lines of a file: its bytes (at the start of an ArrayBuffer of their own, which
 * can be transferred to a worker thread) and the number of its first line (1-based).
 */
export interface LineBlock {
  bytes: Uint8Array;
  firstLine: number;
}

const LF = 0x0a;
const CR = 0x0d;

/** Line breaks in bytes as the line reader counts them: \r\n, \n, or a lone \r. */
function countBreaks(bytes: Buffer): number {
  let n = 0;
  for (let i = bytes.indexOf(LF); i !== -1; i = bytes.indexOf(LF, i + 1)) n++;
  for (let i = bytes.indexOf(CR); i !== -1; i = bytes.indexOf(CR, i + 1)) {
    if (bytes[i + 1] !== LF) n++;
  }
  return n;
}

/** Buffers to read blocks into: given back once a block was parsed (its bytes are not used after). */
export class BlockBuffers {
  private readonly spare: ArrayBuffer[] = [];

  take(minBytes: number): ArrayBuffer {
    const i = this.spare.findIndex((b) => b.byteLength >= minBytes);
    if (i === -1) return new ArrayBuffer(Math.max(minBytes, 2 << 20));
    return this.spare.splice(i, 1)[0]!;
  }

  give(buffer: ArrayBuffer): void {
    if (this.spare.length < 4 && buffer.byteLength > 0) this.spare.push(buffer);
  }
}

/**
 * A file as blocks of at most `maxLines` "\n"-terminated lines (the last block may lack its
 * final newline). Blocks are cut right after a "\n", so neither a UTF-8 sequence nor a "\r\n"
 * is ever split; a lone "\r" inside a block is a line break that the block's parser splits on
 * too, and firstLine counts it, so line numbers are those of the line reader. The file is read
 * straight into the block's buffer (taken from `buffers`: a block given back is read into
 * again), and reading stays ahead of the consumer by one block at most.
 */
export async function* readLineBlocks(
  file: string,
  maxLines: number,
  buffers: BlockBuffers = new BlockBuffers(),
): AsyncGenerator<LineBlock> {
  const fh = await open(file, 'r');
  try {
    let buffer = buffers.take(0);
    let filled = 0;
    // Lines counted in buffer[0..scanned), and where the last of them ended.
    let scanned = 0;
    let lines = 0;
    let firstLine = 1;
    let eof = false;
    // Read about a block at a time (judged by the last one), so that little is left over to
    // move into the next block's buffer.
    let blockBytes = 1 << 20;
    for (;;) {
      const view = Buffer.from(buffer, 0, filled);
      let cut = -1;
      while (lines < maxLines) {
        const i = view.indexOf(LF, scanned);
        if (i === -1) {
          scanned = filled;
          break;
        }
        lines++;
        scanned = i + 1;
        if (lines === maxLines) cut = scanned;
      }
      if (cut === -1 && eof) cut = filled;
      if (cut > 0) {
        // The rest (the start of the next block) moves to a buffer of its own.
        const next = buffers.take(filled - cut);
        new Uint8Array(next).set(new Uint8Array(buffer, cut, filled - cut));
        const block = { bytes: new Uint8Array(buffer, 0, cut), firstLine };
        blockBytes = cut;
        firstLine += countBreaks(view.subarray(0, cut));
        buffer = next;
        filled -= cut;
        scanned = 0;
        lines = 0;
        yield block;
        continue;
      }
      if (eof) return;
      if (filled === buffer.byteLength) {
        const grown = new ArrayBuffer(buffer.byteLength * 2);
        new Uint8Array(grown).set(new Uint8Array(buffer, 0, filled));
        buffer = grown;
      }
      const want = Math.min(
        buffer.byteLength - filled,
        Math.max(blockBytes + (blockBytes >> 2) - filled, 0) + 65536,
      );
      const { bytesRead } = await fh.read(new Uint8Array(buffer, filled, want), 0, want, null);
      if (bytesRead === 0) eof = true;
      filled += bytesRead;
    }
  } finally {
    await fh.close();
  }
}
