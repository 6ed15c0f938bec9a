import { Piscina } from 'piscina';
import type { NdjsonBlock } from './ndjson-block-parser.js';
import type { ParsedChunk } from './observation-copy-rows.js';

/**
 * Worker threads (piscina) that parse NDJSON blocks (ndjson-parse-worker.ts). From the built
 * package the worker is plain JavaScript; from the TypeScript sources (tests, tsx) each thread
 * loads tsx first to run the .ts file.
 */
export class ParsePool {
  private readonly pool: Piscina;

  constructor(threads: number) {
    const fromSources = import.meta.url.endsWith('.ts');
    this.pool = new Piscina({
      filename: new URL(`./ndjson-parse-worker.${fromSources ? 'ts' : 'js'}`, import.meta.url).href,
      minThreads: threads,
      maxThreads: threads,
      ...(fromSources ? { execArgv: ['--import', 'tsx'] } : {}),
      // A thread holds a block, its parsed rows and the parse caches (well under 64 MB); a small
      // young generation and a capped old one make it collect early instead of growing the
      // worker process's RSS by a heap of garbage.
      resourceLimits: { maxYoungGenerationSizeMb: 8, maxOldGenerationSizeMb: 128 },
    });
  }

  /** Size of the EMU id map last sent to a thread. */
  private sentEmuIds = -1;

  /**
   * Parses a block; its bytes move to the thread (the caller must not use them after). The
   * block's EMU ids (a map that only grows) are sent when they grew by a few hundred units
   * since last sent: cloning the whole map for every block cost more than the placeholders it
   * saves, and a thread keeps the last map it got (ndjson-parse-worker.ts).
   */
  parse(block: NdjsonBlock): Promise<ParsedChunk> {
    const size = block.emuIds?.size ?? 0;
    if (this.sentEmuIds >= 0 && size < this.sentEmuIds + 256)
      block = { ...block, emuIds: undefined };
    else this.sentEmuIds = size;
    const spare = this.spares.pop();
    const transferList = [block.bytes.buffer as ArrayBuffer];
    if (spare) {
      block = { ...block, spare };
      transferList.push(spare);
    }
    return this.pool.run(block, { transferList }) as Promise<ParsedChunk>;
  }

  /** Rendered buffers given back, sent to a thread with the next blocks. */
  private readonly spares: ArrayBuffer[] = [];

  /**
   * Gives back a chunk's rendered buffer once its rows are written (the caller must not use it
   * after): a thread renders later rows into it instead of a new one. A few are kept.
   */
  recycle(buffer: ArrayBuffer): void {
    if (this.spares.length < 2 && buffer.byteLength > 0 && !(buffer instanceof SharedArrayBuffer))
      this.spares.push(buffer);
  }

  async close(): Promise<void> {
    await this.pool.destroy();
  }
}
