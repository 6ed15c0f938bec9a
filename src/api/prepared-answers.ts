import type { OutgoingHttpHeaders } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { LRUCache } from 'lru-cache';
import type { PageCache } from '../records/page-cache.js';
import type { PageVersionKey } from '../records/page-versions.js';
import type { BucketRef, ImmediateQuotaStore, QuotaStore } from '../quota/quota-store.js';
import type { Caller, CredentialCache } from './caller.js';
import { cacheControl, CACHE_SECONDS } from './http-caching.js';
import {
  DATA_ENVELOPE_TAIL_BYTES,
  dataEnvelopeHead,
  QUOTA_HEADERS,
  type ApiMeta,
} from './envelope.js';

/**
 * Answers a GET of a URL that a route has already answered from the page cache, in the edge's
 * first hook, when everything the answer needs is known in this process at once: the page is
 * kept at the version the version feed trusts (page-version-feed.ts), the caller is anonymous
 * or its credential is cached, the scope holds, and the quota decides without I/O (a lease or
 * the in-process buckets). It is the route's own answer (same bytes, meta, headers and charge)
 * without validation, the route's handler, or any round trip to Postgres or Redis. Anything
 * else (a refusal, an unknown credential, a page not kept, a version not trusted) goes the
 * usual way, which answers it exactly as before.
 */

/** What a route answered a URL with (see sendDataJson's `prepared`). */
export interface PreparedPage {
  /** The page cache's key of the page. */
  pageKey: string;
  /** The version the page depends on. */
  depends: PageVersionKey;
  /** Tokens a caller must have (a full page at the request's limit). */
  reserve: number;
  /** Tokens the answer costs (its records). */
  cost: number;
}

export class PreparedAnswers {
  private readonly byUrl: LRUCache<string, PreparedPage>;
  /** Requests answered here so far (tests; a metric). */
  answered = 0;

  /** @param maxUrls URLs remembered at most (least recently asked go first). Default 20,000. */
  constructor(
    readonly pages: PageCache,
    maxUrls = 20_000,
  ) {
    this.byUrl = new LRUCache({ max: maxUrls });
  }

  remember(url: string, page: PreparedPage): void {
    this.byUrl.set(url, page);
  }

  find(url: string): PreparedPage | undefined {
    return this.byUrl.get(url);
  }
}

export interface PreparedAnswerContext {
  prepared: PreparedAnswers;
  credentials: CredentialCache;
  store: QuotaStore;
  /** The caller, when it is known at once (anonymous, or a cached credential); else undefined. */
  callerNow(request: FastifyRequest): Caller | undefined;
  bucketOf(caller: Caller): BucketRef;
}

function immediate(store: QuotaStore): ImmediateQuotaStore | undefined {
  return typeof (store as Partial<ImmediateQuotaStore>).takeNow === 'function'
    ? (store as ImmediateQuotaStore)
    : undefined;
}

/** Whether the request was answered here (then the hook must not go on). */
export function answerPrepared(
  request: FastifyRequest,
  reply: FastifyReply,
  ctx: PreparedAnswerContext,
): boolean {
  // A conditional request goes the usual way, which answers 304 when the tag matches.
  if (request.method !== 'GET' || request.headers['if-none-match'] !== undefined) return false;
  const prepared = ctx.prepared.find(request.url);
  if (!prepared) return false;
  const v2 = request.routeOptions.config.v2;
  const store = immediate(ctx.store);
  if (!v2 || !store) return false;
  const caller = ctx.callerNow(request);
  if (!caller || (v2.scope !== undefined && !caller.scopes.includes(v2.scope))) return false;
  if (caller.kind === 'credential' && v2.issuers && !v2.issuers.includes(caller.credential.issuer))
    return false;
  if (caller.kind === 'anonymous' && v2.auth === 'required') return false;
  const page = ctx.prepared.pages.peek(prepared.pageKey, prepared.depends);
  if (!page) return false;
  const bucket = ctx.bucketOf(caller);
  // More than the bucket holds: the usual way decides (a 403, or the whole bucket by the rules).
  if (prepared.reserve > bucket.capacity) return false;
  const decision = store.takeNow(bucket, prepared.reserve, prepared.cost);
  // A refusal is answered by the usual way (it decides again, and a refused take took nothing).
  if (!decision?.allowed) return false;
  request.emutrackCaller = caller;
  ctx.prepared.answered++;
  const caching = v2.cache && {
    etag: page.etag,
    cacheControl: cacheControl(CACHE_SECONDS[v2.cache], caller.kind === 'anonymous'),
  };
  sendEnvelope(reply, { remain: decision.remain, cost: decision.cost }, page.bytes, caching);
  return true;
}

/**
 * Writes `{"ok":true,"meta":...,"data":<page>,"error":""}` with the page's own bytes: the meta and the envelope's
 * ends are written around them, corked into one write, instead of copying the page into a new
 * buffer per request. A fresh 24 KiB buffer per request cost more than its copy: the kernel
 * faulted in its pages as it read them (the route's answers pay that, this one does not). The
 * reply is taken over (hijacked) for that, so what reply.send would do is done here: the
 * headers every v2 answer carries (those set by the app's first hooks included: request id, CORS); the
 * onResponse hooks (metrics, the request log) still run when the response finishes.
 */
function sendEnvelope(
  reply: FastifyReply,
  meta: ApiMeta,
  page: Buffer,
  caching?: { etag: string; cacheControl: string },
): void {
  const head = Buffer.from(dataEnvelopeHead(meta), 'latin1');
  const length = head.length + page.length + DATA_ENVELOPE_TAIL_BYTES.length;
  reply.hijack();
  const res = reply.raw;
  res.writeHead(200, {
    // What the first hooks set: the request id, CORS (cors.ts), the security headers.
    ...(reply.getHeaders() as OutgoingHttpHeaders),
    // The route's own caching headers (v2-edge.ts answerConditionally writes the same).
    ...(caching ? { etag: caching.etag, 'cache-control': caching.cacheControl } : {}),
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(length),
    'x-request-id': String(reply.getHeader('x-request-id') ?? reply.request.id),
    [QUOTA_HEADERS.remain]: String(meta.remain),
    [QUOTA_HEADERS.cost]: String(meta.cost),
  });
  res.cork();
  res.write(head);
  res.write(page);
  res.end(DATA_ENVELOPE_TAIL_BYTES);
  res.uncork();
}
