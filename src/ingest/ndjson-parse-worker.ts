import { parseNdjsonBlock, type NdjsonBlock, type ParsedChunk } from './observation-copy-rows.js';

/** A parse worker thread's task (piscina): one block of an NDJSON file, parsed and rendered. */
export default function parseBlock(block: NdjsonBlock): ParsedChunk {
  return parseNdjsonBlock(block);
}
