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

/**
 * The EMU ids this thread was last sent. A pool serves one ingestion, and a unit's id never
 * changes once committed, so an older map stays right, only smaller: its missing units get
 * placeholders that the writer fills.
 */
let knownEmuIds: ReadonlyMap<string, number> | undefined;

/** A parse worker thread's task (piscina): one block of an NDJSON file, parsed and rendered. */
export default function parseBlock(block: NdjsonBlock): ParsedChunk {
  if (block.emuIds) knownEmuIds = block.emuIds;
  const chunk = parseNdjsonBlock({ ...block, emuIds: knownEmuIds });
  return move(new MovedChunk(chunk)) as unknown as ParsedChunk;
}
