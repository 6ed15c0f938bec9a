import { BoundedKeySet } from './bounded-key-set.js';
import { Lru } from './lru.js';

export interface KeptReadsOptions<Value> {
  /** Bytes kept over all keys (as `sizeOf` counts them). */
  maxBytes: number;
  sizeOf(value: Value): number;
}

/** Keys remembered as missed once, or as too large, at a version (see `missed`). */
const REMEMBERED_LIMIT = 10_000;

/**
 * Whole things (a service day's records, a train's or an EMU's history) read once per data
 * version and kept, so that every page of one is cut from memory until its version moves.
 * Only the newest read of a key is kept; the least recently used go first past `maxBytes`.
 *
 * When a thing is read whole: on its second miss at one version (`missed`), in the background,
 * the page that missed being queried on its own meanwhile. So the first page asked after a
 * change costs one small query (what a client following nextCursor from the first page needs)
 * and not the read of the whole thing; a thing asked for page after page is read once. One
 * found larger than the bound is remembered at that version and not read again.
 *
 * The caller names the version, read before it calls: a thing read after the version was read
 * is never older than the version it is kept under.
 */
export class KeptReads<Key extends string | number, Value extends object> {
  private readonly values: Lru<Key, { version: string; value: Value }>;
  /** Reads in progress, by `version\0key`. */
  private readonly reading = new Map<string, Promise<Value>>();
  private readonly missedOnce = new BoundedKeySet(REMEMBERED_LIMIT);
  private readonly tooLarge = new BoundedKeySet(REMEMBERED_LIMIT);

  constructor(private readonly options: KeptReadsOptions<Value>) {
    // Sizes are given with each set (read): sizeOf walks the whole value, once per read.
    this.values = new Lru({ maxWeight: options.maxBytes });
  }

  /** The value of `key` as kept, if it was read at `version`. */
  get(key: Key, version: string): Value | undefined {
    const kept = this.values.get(key);
    return kept?.version === version ? kept.value : undefined;
  }

  /** Notes a miss of `key` at `version`; the second one starts `read` in the background. */
  missed(key: Key, version: string, read: () => Promise<Value>): void {
    const readKey = `${version}\u0000${key}`;
    if (
      !this.reading.has(readKey) &&
      !this.tooLarge.has(readKey) &&
      this.missedOnce.seenBefore(readKey)
    ) {
      void this.read(key, version, read).catch(() => {});
    }
  }

  /** Resolves once the reads in progress now have ended (kept or failed). */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.reading.values()]);
  }

  /**
   * Reads `key` whole and keeps it under `version`, unless it is kept or being read at that
   * version already (then it waits for that read); resolves to the value read (also when it was
   * too large to keep: the caller that waited for it can still use it once). A failed read is
   * not kept, and a later miss reads again.
   */
  read(key: Key, version: string, read: () => Promise<Value>): Promise<Value> {
    const kept = this.get(key, version);
    if (kept) return Promise.resolve(kept);
    const readKey = `${version}\u0000${key}`;
    let reading = this.reading.get(readKey);
    if (!reading) {
      reading = read()
        .then((value) => {
          // Over the bound: remembered, so that its pages are queried on their own instead of
          // the whole being read again on every second miss.
          const size = this.options.sizeOf(value);
          if (size > this.options.maxBytes) this.tooLarge.add(readKey);
          else this.values.set(key, { version, value }, size);
          return value;
        })
        .finally(() => this.reading.delete(readKey));
      this.reading.set(readKey, reading);
    }
    return reading;
  }

  /** Whether `key` was found too large to keep at `version` (its pages are queried alone). */
  isTooLarge(key: Key, version: string): boolean {
    return this.tooLarge.has(`${version}\u0000${key}`);
  }
}
