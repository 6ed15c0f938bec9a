import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { PageVersionFeed } from './page-version-feed.js';
import { PageVersionReader, type PageVersionKey } from './page-versions.js';
import type { Db, Queryable } from '../db/db.js';

export interface PageCacheOptions {
  /** Bytes of rendered pages kept (UTF-8); least recently used go first. Default 32 MiB. */
  maxBytes?: number;
  /**
   * Versions learned from the writers' notices (page-version-feed.ts), so that a kept page is
   * served without reading its version. Default: none (every request reads its version).
   */
  feed?: PageVersionFeed;
}

/** A rendered page: its body (JSON text) and how many records it holds (for per-record costs). */
export interface RenderedPage {
  body: string;
  records: number;
}

/**
 * A page as kept and served: its body as UTF-8 bytes (encoded once, when rendered, so that a
 * request copies bytes instead of encoding text), how many records it holds, and whether it
 * came from the cache.
 */
export interface ServedPage {
  bytes: Buffer;
  records: number;
  cached: boolean;
  /**
   * A strong entity tag of the bytes (quoted), made once per render: the page is rendered once
   * per version of what it shows, so the tag changes exactly when the bytes do.
   */
  etag: string;
}

interface Entry {
  version: number;
  bytes: Buffer;
  records: number;
  etag: string;
}

/** A strong entity tag of a page's bytes (the same digest as http-caching.ts strongEtag). */
function etagOf(bytes: Buffer): string {
  return `"${createHash('sha256').update(bytes).digest('base64url').slice(0, 32)}"`;
}

/**
 * Rendered pages (the JSON of a response's `data`), kept by what they show (`key`) and served
 * while the version they were rendered under (PageVersionReader) is still current. The version
 * is read before the page is rendered, so a kept page is never older than the version it is
 * kept under: after a transaction that changes a day commits, the next request reads the new
 * version and renders the new bytes. Bounded by size, least recently used first out.
 */
export class PageCache {
  private readonly pages: LRUCache<string, Entry>;
  private readonly versions: PageVersionReader;
  /** Renders in progress: concurrent misses of one page and version share one render. */
  private readonly rendering = new Map<string, Promise<Entry>>();

  private readonly feed: PageVersionFeed | undefined;

  constructor(db: Queryable, options: PageCacheOptions = {}) {
    this.feed = options.feed;
    this.versions = new PageVersionReader(db, options.feed);
    this.pages = new LRUCache<string, Entry>({
      maxSize: options.maxBytes ?? 32 * 1024 * 1024,
      sizeCalculation: (e) => e.bytes.byteLength + 64,
    });
  }

  /**
   * Starts reading the current version of `depends`, to hand to page() later: a caller can
   * overlap the read with other work of the request (its quota check, say). The read begins now,
   * after the request arrived, so it is as good as one begun later.
   */
  version(depends: PageVersionKey): Promise<number> {
    const read = this.versions.read(depends);
    // Awaited by page(); this only keeps a request that ends before then from leaving it unhandled.
    read.catch(() => {});
    return read;
  }

  /**
   * The page `key` at the current version of `depends` (or at `version`, a read of it begun by
   * version() during this request), from the cache or from `render`.
   */
  async page(
    key: string,
    depends: PageVersionKey,
    render: () => Promise<RenderedPage>,
    version: Promise<number> = this.versions.read(depends),
  ): Promise<ServedPage> {
    const current = await version;
    return this.pageAt(key, current, render);
  }

  /**
   * The page `key` if it is kept at the version of `depends` that the feed trusts now, without
   * any read; undefined otherwise (then ask page()).
   */
  peek(key: string, depends: PageVersionKey): ServedPage | undefined {
    const version = this.versions.trusted(depends);
    if (version === undefined) return undefined;
    const kept = this.pages.get(key);
    if (!kept || kept.version !== version) return undefined;
    return { bytes: kept.bytes, records: kept.records, cached: true, etag: kept.etag };
  }

  /** Stops the feed's heartbeats and closes its listener (the next request opens it again). */
  async closeFeed(): Promise<void> {
    await this.feed?.close();
  }

  private async pageAt(
    key: string,
    version: number,
    render: () => Promise<RenderedPage>,
  ): Promise<ServedPage> {
    const kept = this.pages.get(key);
    if (kept && kept.version === version)
      return { bytes: kept.bytes, records: kept.records, cached: true, etag: kept.etag };
    const renderKey = `${version}\u0000${key}`;
    let rendering = this.rendering.get(renderKey);
    if (!rendering) {
      rendering = render().then((page): Entry => {
        const bytes = Buffer.from(page.body);
        return { version, bytes, records: page.records, etag: etagOf(bytes) };
      });
      this.rendering.set(renderKey, rendering);
      rendering
        .then((entry) => {
          // Never replace a page of a later version by one of an earlier (a slow render).
          const now = this.pages.peek(key);
          if (!now || now.version <= version) this.pages.set(key, entry);
        })
        .catch(() => {})
        .finally(() => this.rendering.delete(renderKey));
    }
    const entry = await rendering;
    return { bytes: entry.bytes, records: entry.records, cached: false, etag: entry.etag };
  }

  /** Pages kept, and their size. */
  stats(): { pages: number; bytes: number } {
    return { pages: this.pages.size, bytes: this.pages.calculatedSize };
  }
}

const shared = new WeakMap<object, PageCache>();

/**
 * The page cache of a database handle: one per process and database, made on first use, so
 * that every route of an app (and every app on the same handle) shares one bound. On Postgres
 * it has a version feed (page-version-feed.ts).
 */
export function pageCacheOf(db: Db, options: Omit<PageCacheOptions, 'feed'> = {}): PageCache {
  let cache = shared.get(db);
  if (!cache) {
    const feed = PageVersionFeed.supported(db) ? new PageVersionFeed(db) : undefined;
    cache = new PageCache(db, { ...options, ...(feed ? { feed } : {}) });
    shared.set(db, cache);
  }
  return cache;
}
