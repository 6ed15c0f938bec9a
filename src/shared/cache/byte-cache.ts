import { createHash } from 'node:crypto';
import { Lru } from './lru.js';

export interface ByteCacheOptions {
  /** Bytes kept (as each entry's `size` says); least recently used go first. Default 32 MiB. */
  maxBytes?: number;
}

/**
 * Rendered answers, bounded by their size in bytes, kept under the data version they were
 * rendered at (DataVersionReader): the version is part of the key, so an answer of an older
 * version is never found once the version moved (it ages out), and no rule is needed about
 * which of two renders may replace the other. The API's pages and the site's REST responses use
 * one each, made by their app factory and handed to the routes.
 */
export class ByteCache {
  private readonly entries: Lru<string, { value: unknown }>;

  constructor(options: ByteCacheOptions = {}) {
    this.entries = new Lru({ maxWeight: options.maxBytes ?? 32 * 1024 * 1024 });
  }

  /** What is kept for `key` at `version` (the caller's own type: keys of one kind, one type). */
  get<V>(key: string, version: string): V | undefined {
    return this.entries.get(entryKey(key, version))?.value as V | undefined;
  }

  /** Keeps `value` for `key` at `version`; `bytes` is its size (what the bound counts). */
  set(key: string, version: string, value: unknown, bytes: number): void {
    this.entries.set(entryKey(key, version), { value }, Math.max(1, bytes + 64));
  }

  /** Entries kept, and their size. */
  stats(): { entries: number; bytes: number } {
    return { entries: this.entries.size, bytes: this.entries.weight };
  }
}

function entryKey(key: string, version: string): string {
  return `${version}\u0000${key}`;
}

/**
 * A strong entity tag of what `key` shows at `version`: the bytes of an answer are a function of
 * the data at that version, so the tag changes exactly when they may (and is the same in every
 * process, with no digest of the bytes).
 */
export function versionEtag(key: string, version: string): string {
  return `"${createHash('sha256').update(`${version}\u0000${key}`).digest('base64url').slice(0, 32)}"`;
}
