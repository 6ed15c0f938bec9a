import { LRUCache } from 'lru-cache';

/**
 * What an Lru holds at most: a number of entries, or a total weight (bytes, calls: what the
 * owner counts), each entry weighed by `weightOf` or by the weight given with its `set`.
 */
export type LruBound<K, V> =
  { maxEntries: number } | { maxWeight: number; weightOf?: (value: V, key: K) => number };

/**
 * The one eviction policy of the read side's caches: bounded, and past the bound the least
 * recently used entries go first (lru-cache underneath). `get` marks an entry as used, `peek`
 * does not: a caller that loads a batch touches what it has with `get` before adding the rest,
 * so the additions evict other entries, never one the batch needs. A cache with a version
 * (what it holds is true until the version moves) calls `clear` when it moves.
 */
export class Lru<K extends NonNullable<unknown>, V extends NonNullable<unknown>> {
  private readonly entries: LRUCache<K, V>;

  constructor(bound: LruBound<K, V>) {
    this.entries =
      'maxEntries' in bound
        ? new LRUCache<K, V>({ max: bound.maxEntries })
        : new LRUCache<K, V>({ maxSize: bound.maxWeight, sizeCalculation: bound.weightOf });
  }

  /** The entry of `key`, marked as the most recently used. */
  get(key: K): V | undefined {
    return this.entries.get(key);
  }

  /** The entry of `key`, its place in the order left as it is. */
  peek(key: K): V | undefined {
    return this.entries.peek(key);
  }

  has(key: K): boolean {
    return this.entries.has(key);
  }

  /**
   * Keeps `value` under `key`. `weight` (a weight-bounded Lru without `weightOf`): what the
   * entry weighs, when the caller knows it already.
   */
  set(key: K, value: V, weight?: number): void {
    if (weight === undefined) this.entries.set(key, value);
    else this.entries.set(key, value, { size: weight });
  }

  delete(key: K): boolean {
    return this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
  }

  /** Entries kept. */
  get size(): number {
    return this.entries.size;
  }

  /** Their weight (0 for an Lru bounded by entries). */
  get weight(): number {
    return this.entries.calculatedSize;
  }
}
