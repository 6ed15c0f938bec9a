/**
 * Byte strings (keys) to entry numbers, by open addressing on an FNV-1a hash of the bytes. The
 * keys, and the bytes an entry keeps (appended after its key), are in one arena, and a slot
 * holds the hash and the entry number: a lookup touches the slot, the key's bytes and, on a hit,
 * what follows them, instead of an object and a typed array per entry. Bounded like the
 * validator's caches: cleared when it holds more than `limit` entries (entry numbers then
 * start again; `entries` is emptied).
 */
export class ByteTable<E> {
  /** Per slot: the key's hash and its entry's number + 1 (0: empty). */
  private slots = new Int32Array(2 * 1024);
  /** Per entry: where its key starts in the arena, and its length. */
  private keys = new Int32Array(2 * 512);
  arena = new Uint8Array(1 << 16);
  private arenaLength = 0;
  readonly entries: E[] = [];

  constructor(private readonly limit: number) {}

  static hashOf(bytes: Uint8Array, start: number, end: number): number {
    let h = 0x811c9dc5 | 0;
    for (let i = start; i < end; i++) h = Math.imul(h ^ bytes[i]!, 0x01000193);
    return h;
  }

  /** The entry whose key is bytes[start..end) (hash h), or undefined. */
  get(bytes: Uint8Array, start: number, end: number, h: number): E | undefined {
    const slots = this.slots;
    const mask = (slots.length >> 1) - 1;
    const len = end - start;
    for (let i = h & mask; ; i = (i + 1) & mask) {
      const entry = slots[2 * i + 1]! - 1;
      if (entry < 0) return undefined;
      if (slots[2 * i] !== h || this.keys[2 * entry + 1] !== len) continue;
      const arena = this.arena;
      const at = this.keys[2 * entry]!;
      let j = 0;
      while (j < len && arena[at + j] === bytes[start + j]) j++;
      if (j === len) return this.entries[entry];
    }
  }

  /** Appends bytes to the arena; returns where they start (arena may be a new array after). */
  append(src: Uint8Array, start: number, end: number): number {
    const len = end - start;
    if (this.arenaLength + len > this.arena.length) {
      const grown = new Uint8Array(Math.max(this.arena.length * 2, this.arenaLength + len));
      grown.set(this.arena.subarray(0, this.arenaLength));
      this.arena = grown;
    }
    const at = this.arenaLength;
    for (let i = 0; i < len; i++) this.arena[at + i] = src[start + i]!;
    this.arenaLength += len;
    return at;
  }

  /**
   * Adds an entry for the key bytes[start..end) (hash h), its key copied into the arena first;
   * `make` is then called to append the entry's own bytes and make it.
   */
  add(bytes: Uint8Array, start: number, end: number, h: number, make: () => E): E {
    if (this.entries.length >= this.limit) this.clear();
    const number = this.entries.length;
    if ((number + 1) * 2 > this.slots.length >> 1) this.grow();
    if (2 * number + 2 > this.keys.length) {
      const grown = new Int32Array(this.keys.length * 2);
      grown.set(this.keys);
      this.keys = grown;
    }
    this.keys[2 * number] = this.append(bytes, start, end);
    this.keys[2 * number + 1] = end - start;
    const entry = make();
    this.entries.push(entry);
    this.put(h, number);
    return entry;
  }

  private put(h: number, entry: number): void {
    const slots = this.slots;
    const mask = (slots.length >> 1) - 1;
    let i = h & mask;
    while (slots[2 * i + 1] !== 0) i = (i + 1) & mask;
    slots[2 * i] = h;
    slots[2 * i + 1] = entry + 1;
  }

  private grow(): void {
    const old = this.slots;
    this.slots = new Int32Array(old.length * 2);
    for (let i = 0; i < old.length; i += 2)
      if (old[i + 1] !== 0) this.put(old[i]!, old[i + 1]! - 1);
  }

  private clear(): void {
    this.slots = new Int32Array(2 * 1024);
    this.keys = new Int32Array(2 * 512);
    this.arena = new Uint8Array(1 << 16);
    this.arenaLength = 0;
    this.entries.length = 0;
  }
}
