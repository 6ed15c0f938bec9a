import { LRUCache } from 'lru-cache';
import type { Queryable } from '../../db/db.js';
import type { Logger } from '../../log/logger.js';
import { SiteContentVersionReader, type SiteContentState } from './site-content-version.js';

export interface SiteResponseCacheOptions {
  /** Size of response bodies kept (UTF-16 code units); least recently used go first. Default 32 MiB. */
  maxBytes?: number;
  logger?: Logger;
}

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

interface Entry extends PreparedResponse {
  version: number;
}

/**
 * Prepared REST responses of the site, kept by what they show (the caller's identity class,
 * path and query) and served while the site content version they were rendered under is still
 * the current one and no scheduled item has come due since. The state is read per request
 * (coalesced, SiteContentVersionReader) before the response is rendered, so a kept response is
 * never older than the version it is kept under: after a writing transaction commits, the next
 * request renders afresh, in this process or any other.
 */
export class SiteResponseCache {
  private readonly entries: LRUCache<string, Entry>;
  private readonly reader: SiteContentVersionReader;

  constructor(db: Queryable, options: SiteResponseCacheOptions = {}) {
    this.reader = new SiteContentVersionReader(db, { logger: options.logger });
    this.entries = new LRUCache<string, Entry>({
      maxSize: options.maxBytes ?? 32 * 1024 * 1024,
      sizeCalculation: (e) => Math.max(1, e.body.length + 2 * headerBytes(e.headers)),
    });
  }

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
    const kept = this.entries.get(key);
    return kept && kept.version === state.version ? kept : undefined;
  }

  /** Keeps a response rendered after `state` was read (never over one of a later version). */
  set(key: string, state: SiteContentState, response: PreparedResponse): void {
    const now = this.entries.peek(key);
    if (now && now.version > state.version) return;
    this.entries.set(key, { ...response, version: state.version });
  }

  /** Responses kept, and their size. */
  stats(): { responses: number; bytes: number } {
    return { responses: this.entries.size, bytes: this.entries.calculatedSize };
  }
}

function headerBytes(headers: Record<string, string>): number {
  let n = 64;
  for (const [k, v] of Object.entries(headers)) n += k.length + v.length;
  return n;
}

/**
 * The cache key of an anonymous GET/HEAD: the REST path and the query (every parameter,
 * `_fields`, `_embed`, `_envelope` and `context` included; `rest_route` is the path), top-level
 * names sorted.
 */
export function anonymousResponseKey(path: string, query: Record<string, unknown>): string {
  // Every part JSON-quoted: no path, name or value can pass for another split.
  let key = `anon ${JSON.stringify(path)}`;
  const names = Object.keys(query);
  if (names.length === 0) return key;
  names.sort();
  for (const n of names) {
    if (n !== 'rest_route') key += ` ${JSON.stringify(n)}:${JSON.stringify(query[n])}`;
  }
  return key;
}
