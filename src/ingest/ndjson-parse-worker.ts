import { move, transferableSymbol, valueSymbol } from 'piscina';
import { parseNdjsonBlock, type NdjsonBlock, type ParsedChunk } from './observation-copy-rows.js';

/** A parsed chunk whose rendered bytes move to the pool's owner instead of being copied. */
class MovedChunk {
  constructor(private readonly chunk: ParsedChunk) {}

  get [transferableSymbol](): object {
    return [this.chunk.rows.bytes.buffer];
  }

  get [valueSymbol](): object {
    return this.chunk;
  }
}

/** A parse worker thread's task (piscina): one block of an NDJSON file, parsed and rendered. */
export default function parseBlock(block: NdjsonBlock): ParsedChunk {
  return move(new MovedChunk(parseNdjsonBlock(block))) as unknown as ParsedChunk;
}
