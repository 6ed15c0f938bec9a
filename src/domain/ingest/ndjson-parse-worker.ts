import { move, transferableSymbol, valueSymbol } from 'piscina';
import { LineScanner } from './ndjson-line-scan.js';
import { parseNdjsonBlock, type NdjsonBlock } from './ndjson-block-parser.js';
import type { ParsedChunk } from './observation-copy-rows.js';

/**
 * A parsed chunk whose rendered bytes move to the pool's owner instead of being copied, with
 * the block's buffer (its bytes parsed) to read another block into.
 */
class MovedChunk {
  constructor(private readonly chunk: ParsedChunk) {}

  get [transferableSymbol](): object {
    return this.chunk.input
      ? [this.chunk.rows.bytes.buffer, this.chunk.input]
      : [this.chunk.rows.bytes.buffer];
  }

  get [valueSymbol](): object {
    return this.chunk;
  }
}

/**
 * The EMU ids this thread was last sent. A pool serves one ingestion, and a unit's id never
 * changes once committed, so an older map stays right, only smaller: its missing units get
 * placeholders that the writer fills.
 */
let knownEmuIds: ReadonlyMap<string, number> | undefined;

/** This thread's scanner: the codes it met in earlier blocks are not parsed again. */
const scanner = new LineScanner();

/** Buffers sent back after their rows were written, to render later rows into. */
const spares: ArrayBuffer[] = [];

/** A parse worker thread's task (piscina): one block of an NDJSON file, parsed and rendered. */
export default function parseBlock(block: NdjsonBlock): ParsedChunk {
  if (block.emuIds) knownEmuIds = block.emuIds;
  if (block.spare) spares.push(block.spare);
  const chunk = parseNdjsonBlock(
    { ...block, emuIds: knownEmuIds, spare: undefined },
    { output: spares.pop(), scanner },
  );
  const input = block.bytes.buffer;
  // Given back unless the rows were rendered into it (they never are: rows take a buffer of
  // their own) or it is not a plain buffer.
  if (input instanceof ArrayBuffer && input !== chunk.rows.bytes.buffer) chunk.input = input;
  return move(new MovedChunk(chunk)) as unknown as ParsedChunk;
}
