import { createReadStream } from 'node:fs';

/**
 * A run of whole lines of a file: its bytes (a buffer of their own, which can be transferred to
 * a worker thread) and the number of its first line (1-based).
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

/** The bytes in an ArrayBuffer of their own (Buffer.concat may use the shared pool). */
function ownBuffer(bytes: Buffer): Uint8Array {
  if (bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength) return bytes;
  return new Uint8Array(bytes);
}

/**
 * A file as blocks of at most `maxLines` "\n"-terminated lines (the last block may lack its
 * final newline). Blocks are cut right after a "\n", so neither a UTF-8 sequence nor a "\r\n"
 * is ever split; a lone "\r" inside a block is a line break that the block's parser splits on
 * too, and firstLine counts it, so line numbers are those of the line reader. Reading stays
 * ahead of the consumer by one stream buffer at most.
 */
export async function* readLineBlocks(file: string, maxLines: number): AsyncGenerator<LineBlock> {
  let pending: Buffer[] = [];
  let pendingLines = 0;
  let firstLine = 1;
  const emit = (upTo: Buffer[]): LineBlock => {
    const bytes = Buffer.concat(upTo);
    const block = { bytes: ownBuffer(bytes), firstLine };
    firstLine += countBreaks(bytes);
    return block;
  };
  for await (const chunk of createReadStream(file, {
    highWaterMark: 1 << 20,
  }) as AsyncIterable<Buffer>) {
    let rest = chunk;
    for (;;) {
      // Find the newline that completes maxLines lines, if this chunk holds it.
      let cut = -1;
      let i = -1;
      while (pendingLines < maxLines) {
        i = rest.indexOf(LF, i + 1);
        if (i === -1) break;
        pendingLines++;
        cut = i;
      }
      if (pendingLines < maxLines) {
        pending.push(rest);
        break;
      }
      pending.push(rest.subarray(0, cut + 1));
      yield emit(pending);
      pending = [];
      pendingLines = 0;
      rest = rest.subarray(cut + 1);
    }
  }
  const tail = Buffer.concat(pending);
  if (tail.length > 0) yield emit([tail]);
}
