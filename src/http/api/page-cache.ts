import { ByteCache, versionEtag } from '../../shared/cache/byte-cache.js';
import {
  dataVersionTag,
  type DataVersionReader,
  type DataVersionRef,
} from '../../shared/cache/data-versions.js';

/** A rendered page: its body (JSON text) and how many records it holds (for per-record costs). */
export interface RenderedPage {
  body: string;
  records: number;
}

/**
 * A page as kept and served: its body as UTF-8 bytes (encoded once, when rendered, so that a
 * request copies bytes instead of encoding text), how many records it holds, whether it came
 * from the cache, and its strong entity tag (versionEtag: from the version it shows).
 */
export interface ServedPage {
  bytes: Buffer;
  records: number;
  cached: boolean;
  etag: string;
}

interface Kept {
  bytes: Buffer;
  records: number;
  /** versionEtag of the key and version it is kept under: digested once, not per request. */
  etag: string;
}

/**
 * The API's rendered pages (the JSON of a response's `data`), kept by what they show (`key`)
 * at the data version they depend on. The version is read (DataVersionReader: a query begun
 * after the request arrived) before the page is looked up or rendered, so a page is never older
 * than a commit that finished before its request began, in this process or any other. Made by
 * the app factory (app.ts) and handed to the routes with the services.
 */
export class PageCache {
  /** Renders in progress: concurrent misses of one page and version share one render. */
  private readonly rendering = new Map<string, Promise<Kept>>();

  constructor(
    private readonly versions: DataVersionReader,
    private readonly cache: ByteCache = new ByteCache(),
  ) {}

  /** The page `key` at the current version of `depends`, from the cache or from `render`. */
  async page(
    key: string,
    depends: DataVersionRef,
    render: () => Promise<RenderedPage>,
  ): Promise<ServedPage> {
    const version = `${dataVersionTag(depends)}@${await this.versions.read(depends)}`;
    const kept = this.cache.get<Kept>(key, version);
    if (kept) return { ...kept, cached: true };
    const renderKey = `${version}\u0000${key}`;
    let rendering = this.rendering.get(renderKey);
    if (!rendering) {
      rendering = render().then((page) => ({
        bytes: Buffer.from(page.body),
        records: page.records,
        etag: versionEtag(key, version),
      }));
      this.rendering.set(renderKey, rendering);
      rendering
        .then((entry) => this.cache.set(key, version, entry, entry.bytes.byteLength))
        .catch(() => {})
        .finally(() => this.rendering.delete(renderKey));
    }
    return { ...(await rendering), cached: false };
  }

  /** Pages kept, and their size. */
  stats(): { pages: number; bytes: number } {
    const { entries, bytes } = this.cache.stats();
    return { pages: entries, bytes };
  }
}
