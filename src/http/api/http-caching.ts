import { createHash } from 'node:crypto';

/**
 * HTTP caching of v2 reads (docs/stale-days-and-caching.md).
 *
 * - ETag: strong, a digest of the answer's `data` as served (for a kept page, of its key and the
 *   data version of what it shows: page-cache.ts, so the tag follows those versions; the CSV's
 *   own SHA-256 for an export). The meta (quota) is not part of it: it is the request's,
 *   not the resource's. So a rebuild that changes a day changes the tag of every page showing
 *   it in every API process as soon as the page is rendered at the new version, and a rebuild
 *   that changes nothing keeps it.
 * - If-None-Match that matches: 304, with the quota headers, costing NOT_MODIFIED_COST (or the
 *   operation's own cost when that is less).
 * - Cache-Control: nothing is `immutable` (late data and corrections can change any day);
 *   max-age by how soon the data can change (CACHE_SECONDS); `public` for anonymous callers,
 *   `private` for credentialed ones (their answer's meta is theirs).
 */

/** Tokens a 304 costs at most: a revalidation is cheap, but never an unmetered request. */
export const NOT_MODIFIED_COST = 1;

/**
 * max-age by what an answer shows:
 * - `days`: records, histories, exports and their index. A late sighting changes a past day
 *   within STALE_REBUILD_DELAY_MS (default 60 s) plus a build, and today's records change all
 *   day: a minute, after which a client revalidates (a 304 costs 1).
 * - `timetables`: timetables, station boards and allocation change when an operator ingests
 *   timetables or the fleet (or corrects a unit): 5 minutes, as the live service's short age.
 */
export const CACHE_SECONDS = { days: 60, timetables: 300 } as const;
export type CacheClass = keyof typeof CACHE_SECONDS;

/** A strong entity tag of `bytes` (and of `variant`, the representation, when given). */
export function strongEtag(bytes: Buffer | string, variant = ''): string {
  const hash = createHash('sha256').update(bytes);
  if (variant) hash.update(`\u0000${variant}`);
  return `"${hash.digest('base64url').slice(0, 32)}"`;
}

/**
 * Whether If-None-Match names `etag` (RFC 9110 13.1.2: weak comparison, so W/"x" matches "x";
 * `*` matches any current representation).
 */
export function etagMatches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  const opaque = etag.replace(/^W\//, '');
  return ifNoneMatch
    .split(',')
    .map((t) => t.trim())
    .some((t) => t === '*' || t.replace(/^W\//, '') === opaque);
}

/** The Cache-Control of a v2 read of `cacheClass` for an anonymous or credentialed caller. */
export function cacheControl(seconds: number, anonymous: boolean): string {
  return `${anonymous ? 'public' : 'private'}, max-age=${seconds}`;
}

const DATA_MARK = Buffer.from(',"data":');
const HEAD = '{"ok":true,"meta":';
const TAIL = ',"error":""}';

/**
 * The `data` part of a success envelope as sent (`{"ok":true,"meta":{...},"data":...,"error":""}`,
 * envelope.ts): the meta holds numbers only, so the first `,"data":` ends it, and the envelope's
 * fixed tail follows the data. Undefined for anything else.
 */
export function envelopeData(payload: unknown): Buffer | string | undefined {
  if (typeof payload === 'string') {
    if (!payload.startsWith(HEAD) || !payload.endsWith(TAIL)) return undefined;
    const at = payload.indexOf(',"data":');
    return at < 0 ? undefined : payload.slice(at + DATA_MARK.length, payload.length - TAIL.length);
  }
  if (Buffer.isBuffer(payload)) {
    if (
      payload.length < HEAD.length + TAIL.length ||
      payload.toString('latin1', 0, HEAD.length) !== HEAD ||
      payload.toString('latin1', payload.length - TAIL.length) !== TAIL
    )
      return undefined;
    const at = payload.indexOf(DATA_MARK);
    return at < 0
      ? undefined
      : payload.subarray(at + DATA_MARK.length, payload.length - TAIL.length);
  }
  return undefined;
}
