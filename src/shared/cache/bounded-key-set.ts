/**
 * A set of keys that holds at most `limit` of them, forgotten all at once past it (a bound with
 * no bookkeeping per key; what it remembers is a hint, so forgetting costs only a repeat). Used
 * to act on the second time a key is seen: PageCache keeps a page asked for again,
 * DailyRecordDays reads a day whole on its second missed page.
 */
export class BoundedKeySet {
  private readonly keys = new Set<string>();

  constructor(private readonly limit: number) {}

  has(key: string): boolean {
    return this.keys.has(key);
  }

  add(key: string): void {
    if (this.keys.size >= this.limit) this.keys.clear();
    this.keys.add(key);
  }

  /** Whether `key` was in the set (it is taken out); else it is added. */
  seenBefore(key: string): boolean {
    if (this.keys.delete(key)) return true;
    this.add(key);
    return false;
  }
}
