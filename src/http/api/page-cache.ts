import { brotliCompressSync, constants as zlib } from 'node:zlib';
import { BoundedKeySet } from '../../shared/cache/bounded-key-set.js';
import { ByteCache, versionEtag } from '../../shared/cache/byte-cache.js';
import {
  dataVersionTag,
  type DataVersionReader,
  type DataVersionRef,
} from '../../shared/cache/data-versions.js';
import { utf8Concat } from './envelope.js';

/**
 * A rendered page: its body (JSON text, or its pieces in order: see utf8Concat) and how many
 * records it holds (for per-record costs).
 */
export interface RenderedPage {
  body: string | readonly string[];
  records: number;
}

/**
 * A page as served: its body (UTF-8 bytes when kept, encoded once when rendered, so that a
 * request copies bytes instead of encoding text; the rendered text when not kept), how many
 * records it holds, whether it came from the cache, and its strong entity tag (versionEtag: from
 * the version it shows).
 */
export interface ServedPage {
  body: Buffer | string | readonly string[];
  records: number;
  cached: boolean;
  etag: string;
  /** 'br': `body` is the page's bytes compressed with brotli (PageOptions.encoding). */
  encoding?: 'br';
}

export interface PageOptions {
  /**
   * When a rendered page is kept. 'always' (the default): from its first render. 'when-asked-
   * again': from its second render at one version, among the last ASKED_ONCE_LIMIT pages asked
   * for once. For pages whose keys are many (any cursor and any limit) and whose render is cheap:
   * pages asked for once (a client paging from a random cursor) do not push out the pages asked
   * for again and again, and cost no copy into bytes nor a place in the cache.
   */
  keep?: 'always' | 'when-asked-again';
  /**
   * 'br': a kept page is kept compressed with brotli (at BROTLI_QUALITY), compressed once when
   * it is kept instead of on every request, and in a sixth to a tenth of the memory (an HTML
   * page of 20 KB keeps in about 2.5 KB; uncompressed, a round of 1,800 train pages overran the
   * cache's 32 MiB and every page served again was rendered again). For answers sent as they
   * are kept to clients that take brotli (the web app's pages); the caller decodes for others.
   */
  encoding?: 'br';
}

/**
 * Brotli's quality for kept pages. A train page never served before is compressed on its way
 * out, so this is paid by every first view: of the 21 KB train page, quality 3 takes 0.10 ms
 * and gives 3.1 KB, quality 5 0.21 ms and 2.6 KB (a twelfth of the page's whole cost), quality 1
 * 0.05 ms and 3.5 KB.
 */
export const BROTLI_QUALITY = 1;

/**
 * A page's bytes compressed with brotli, in one call on this thread (the thread pool's round
 * trip cost more than the compression of a page) and with a window just larger than the page
 * (brotli's default 4 MiB window is set up for every call: a third of a 20 KB page's time).
 */
function brotli(bytes: Buffer): Buffer {
  const window = Math.ceil(Math.log2(bytes.byteLength + 1));
  return brotliCompressSync(bytes, {
    params: {
      [zlib.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY,
      [zlib.BROTLI_PARAM_LGWIN]: Math.min(zlib.BROTLI_MAX_WINDOW_BITS, Math.max(16, window)),
      [zlib.BROTLI_PARAM_SIZE_HINT]: bytes.byteLength,
    },
  });
}

/** Pages remembered as asked for once (PageOptions.keep); forgotten all at once past it. */
const ASKED_ONCE_LIMIT = 50_000;

interface Rendered {
  body: Buffer | string | readonly string[];
  encoding?: 'br';
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
  private readonly rendering = new Map<string, Promise<Rendered>>();
  /** `version\0key` of pages asked for once, not kept yet (PageOptions.keep). */
  private readonly askedOnce = new BoundedKeySet(ASKED_ONCE_LIMIT);

  /**
   * @param generation what else the pages' bytes depend on: the code that writes them
   *   (renderGeneration, in the app); part of every ETag. Default ''.
   */
  constructor(
    private readonly versions: DataVersionReader,
    private readonly cache: ByteCache = new ByteCache(),
    private readonly generation = '',
  ) {}

  /**
   * The page `key` at the current version of `depends`, from the cache or from `render`, which
   * is given that version (as `name:key@version`: a render that keeps data of its own, as
   * DailyRecordDays does, keeps it under the same version). A page that shows several versioned
   * things depends on all of them (their versions read together, `a@1+b@2`).
   */
  async page(
    key: string,
    depends: DataVersionRef | readonly DataVersionRef[],
    render: (version: string) => Promise<RenderedPage>,
    options: PageOptions = {},
  ): Promise<ServedPage> {
    const version = await this.versionOf(depends);
    const kept = this.cache.get<Rendered>(key, version);
    if (kept) return { ...kept, cached: true };
    const renderKey = `${version}\u0000${key}`;
    let rendering = this.rendering.get(renderKey);
    if (!rendering) {
      const keep = options.keep !== 'when-asked-again' || this.askedOnce.seenBefore(renderKey);
      const etag = versionEtag(key, `${this.generation}/${version}`);
      rendering = render(version).then((page): Rendered => {
        if (!keep) return { body: page.body, records: page.records, etag };
        const bytes = bytesOf(page.body);
        if (options.encoding !== 'br') return { body: bytes, records: page.records, etag };
        return { body: brotli(bytes), encoding: 'br', records: page.records, etag };
      });
      this.rendering.set(renderKey, rendering);
      rendering
        .then((entry) => {
          if (Buffer.isBuffer(entry.body)) {
            this.cache.set(key, version, entry, entry.body.byteLength);
          }
        })
        .catch(() => {})
        .finally(() => this.rendering.delete(renderKey));
    }
    return { ...(await rendering), cached: false };
  }

  private async versionOf(depends: DataVersionRef | readonly DataVersionRef[]): Promise<string> {
    if (!Array.isArray(depends)) {
      const ref = depends as DataVersionRef;
      return `${dataVersionTag(ref)}@${await this.versions.read(ref)}`;
    }
    // Read in one event-loop turn: the reader answers them with one statement (one snapshot).
    const read = await Promise.all(depends.map((ref) => this.versions.read(ref)));
    return depends.map((ref, i) => `${dataVersionTag(ref)}@${read[i]}`).join('+');
  }

  /** Pages kept, and their size. */
  stats(): { pages: number; bytes: number } {
    const { entries, bytes } = this.cache.stats();
    return { pages: entries, bytes };
  }
}

function bytesOf(body: string | readonly string[]): Buffer {
  return typeof body === 'string' ? Buffer.from(body) : utf8Concat(body);
}
