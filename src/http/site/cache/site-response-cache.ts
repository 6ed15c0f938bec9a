import type { ByteCache } from '../../../shared/cache/byte-cache.js';
import type { SiteContentState, SiteContentVersionReader } from './site-content-version.js';

/**
 * A REST response as sent: status, the headers the endpoint set, every header sent (the edge's
 * with the endpoint's, merged once) and the body (JSON text: sent as a string, so that onSend
 * hooks of other modules see what they saw before).
 */
export interface PreparedResponse {
  status: number;
  headers: Record<string, string>;
  sendHeaders: Record<string, string | string[]>;
  body: string;
}

/**
 * Prepared REST responses of the site, kept by what they show (the caller's identity class,
 * path and query) in the app's ByteCache under the site content version they were rendered at,
 * served while that version is current and no scheduled item has come due since. The state is
 * read per request (SiteContentVersionReader) before the response is rendered, so a kept
 * response is never older than a commit that finished before its request began: after a writing
 * transaction commits, the next request renders afresh, in this process or any other.
 */
export class SiteResponseCache {
  constructor(
    private readonly reader: SiteContentVersionReader,
    private readonly cache: ByteCache,
  ) {}

  /** The site's content state, read by a query that begins now. */
  state(): Promise<SiteContentState> {
    return this.reader.read();
  }

  /** Whether a scheduled item has come due at `nowMs` (nothing may be served from the cache). */
  static due(state: SiteContentState, nowMs: number): boolean {
    return state.nextPublishMs !== null && state.nextPublishMs <= nowMs;
  }

  /** The response kept for `key` at `state`, if any. */
  get(key: string, state: SiteContentState): PreparedResponse | undefined {
    return this.cache.get<PreparedResponse>(key, versionOf(state));
  }

  /** Keeps a response rendered after `state` was read. */
  set(key: string, state: SiteContentState, response: PreparedResponse): void {
    const bytes = Buffer.byteLength(response.body) + headerBytes(response.headers);
    this.cache.set(key, versionOf(state), response, bytes);
  }

  /** Responses kept, and their size. */
  stats(): { responses: number; bytes: number } {
    const { entries, bytes } = this.cache.stats();
    return { responses: entries, bytes };
  }
}

function versionOf(state: SiteContentState): string {
  return `site_content:0@${state.version}`;
}

function headerBytes(headers: Record<string, string>): number {
  let n = 64;
  for (const [k, v] of Object.entries(headers)) n += k.length + v.length;
  return n;
}

/**
 * The cache key of an anonymous GET/HEAD: the REST path and the query (every parameter,
 * `_fields`, `_embed`, `_envelope`, `context` and `rest_route` included: a list's Link headers
 * repeat `rest_route`), top-level names sorted.
 */
export function anonymousResponseKey(path: string, query: Record<string, unknown>): string {
  // Every part JSON-quoted: no path, name or value can pass for another split.
  let key = `anon ${JSON.stringify(path)}`;
  const names = Object.keys(query);
  if (names.length === 0) return key;
  names.sort();
  for (const n of names) key += ` ${JSON.stringify(n)}:${JSON.stringify(query[n])}`;
  return key;
}
