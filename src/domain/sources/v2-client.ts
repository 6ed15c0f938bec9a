import type { HttpGet, HttpGetResponse } from '../../shared/io/http-get.js';
import {
  parseChangesPage,
  parseEnvelope,
  parsePage,
  V2FormatError,
  type V2ChangesPage,
  type V2Envelope,
  type V2Page,
} from './v2-page.js';
import { PacedHttp, SourceRequestError, type PullClock } from './paced-http.js';

export { realClock, retryAfterSeconds, type PullClock } from './paced-http.js';

export interface V2ClientOptions {
  baseUrl: string;
  /** Sent as `Authorization: Bearer`; never printed. */
  apiKey: string | undefined;
  /** Requests per second at most. */
  rate: number;
  clock: PullClock;
  get: HttpGet;
  timeoutMs: number;
  maxBytes: number;
  /** Longest wait a 429 or meta.retryAfter may ask for before the pull gives up. */
  maxWaitSeconds: number;
  /** 429s in a row on one request before the pull gives up. */
  maxRefusals: number;
  userAgent: string;
}

/** A request that failed for good (the error of every kind of source). */
export const V2RequestError = SourceRequestError;
export type V2RequestError = SourceRequestError;

/** What one page request gave: the page, or "unchanged" (a 304 to If-None-Match). */
export type PageAnswer =
  { kind: 'page'; page: V2Page; etag: string | null } | { kind: 'unchanged' };

/** An error code of an envelope, if it is one we can print safely (a plain word). */
function envelopeCode(res: HttpGetResponse): string {
  try {
    const env = parseEnvelope(res.body, res.headers['content-type']);
    const code = typeof env.error === 'object' ? env.error.code : '';
    return /^[a-z][a-z0-9_]{0,40}$/.test(code) ? ` ${code}` : '';
  } catch {
    return '';
  }
}

/** The wait a 429's envelope asks for in meta.retryAfter, if it is one. */
function metaRetryAfter(res: HttpGetResponse): number | undefined {
  try {
    return parseEnvelope(res.body, res.headers['content-type']).meta?.retryAfter;
  } catch {
    return undefined;
  }
}

/**
 * Asks one v2 server for pages of /api/v2/records/daily or of its change feed, paced (PacedHttp: the rate, 429s and
 * their Retry-After or meta.retryAfter, a low quota) and never before a meta.retryAfter of a
 * success has passed. URLs are built from the configured base and fixed paths only: nothing the
 * server sends is followed (a redirect is an error, and the cursor it gives is checked before it
 * is sent back).
 */
export class V2Client {
  private readonly http: PacedHttp;

  constructor(private readonly o: V2ClientOptions) {
    this.http = new PacedHttp(o);
  }

  get requests(): number {
    return this.http.requests;
  }
  get refusals(): number {
    return this.http.refusals;
  }
  get waitedMs(): number {
    return this.http.waitedMs;
  }

  /** The URL of one page: base + fixed path + the query we build (nothing else). */
  pageUrl(ymd: string, limit: number, cursor: string): string {
    const q = new URLSearchParams({ date: ymd, limit: String(limit) });
    if (cursor !== '') q.set('cursor', cursor);
    return `${this.o.baseUrl}/api/v2/records/daily?${q.toString()}`;
  }

  async page(ymd: string, limit: number, cursor: string, etag?: string): Promise<PageAnswer> {
    const url = this.pageUrl(ymd, limit, cursor);
    const answer = await this.envelope(url, etag);
    if (answer.kind === 'unchanged') return answer;
    return { kind: 'page', page: this.read(url, answer.env, parsePage), etag: answer.etag };
  }

  /** The URL of one page of the change feed: base + fixed path + the query we build. */
  changesUrl(limit: number, cursor: string): string {
    const q = new URLSearchParams({ limit: String(limit) });
    if (cursor !== '') q.set('cursor', cursor);
    return `${this.o.baseUrl}/api/v2/records/changes?${q.toString()}`;
  }

  /** One page of GET /api/v2/records/changes after `cursor` ("" = from the first kept). */
  async changes(limit: number, cursor: string): Promise<V2ChangesPage> {
    const url = this.changesUrl(limit, cursor);
    const answer = await this.envelope(url, undefined);
    if (answer.kind === 'unchanged') throw new V2RequestError(url, 'HTTP 304 to a plain request');
    return this.read(url, answer.env, parseChangesPage);
  }

  private read<T>(url: string, env: V2Envelope, parse: (env: V2Envelope) => T): T {
    try {
      return parse(env);
    } catch (err) {
      if (err instanceof V2FormatError) throw new V2RequestError(url, err.reason);
      throw err;
    }
  }

  /** One paced GET of an envelope: the rate, 429s and meta.retryAfter obeyed; errors named. */
  private async envelope(
    url: string,
    etag: string | undefined,
  ): Promise<{ kind: 'unchanged' } | { kind: 'envelope'; env: V2Envelope; etag: string | null }> {
    const headers: Record<string, string> = {
      accept: 'application/json',
      'user-agent': this.o.userAgent,
    };
    if (this.o.apiKey !== undefined) headers.authorization = `Bearer ${this.o.apiKey}`;
    if (etag !== undefined) headers['if-none-match'] = etag;
    const res = await this.http.get(url, headers, metaRetryAfter);
    if (res.status === 304) {
      if (etag === undefined) throw new V2RequestError(url, 'HTTP 304 to a plain request');
      return { kind: 'unchanged' };
    }
    if (res.status !== 200) {
      const what = res.status >= 300 && res.status < 400 ? ' (redirects are not followed)' : '';
      throw new V2RequestError(url, `HTTP ${res.status}${envelopeCode(res)}${what}`);
    }
    try {
      const env = parseEnvelope(res.body, res.headers['content-type']);
      if (env.meta?.retryAfter !== undefined) {
        if (env.meta.retryAfter > this.o.maxWaitSeconds)
          throw new V2FormatError(
            `meta.retryAfter asks to wait ${Math.ceil(env.meta.retryAfter)} s, longer than ${this.o.maxWaitSeconds} s`,
          );
        this.http.hold(this.o.clock.now() + env.meta.retryAfter * 1000);
      }
      if (!env.ok) throw new V2FormatError('ok: false on an HTTP 200 answer');
      const etagHeader = res.headers.etag;
      return {
        kind: 'envelope',
        env,
        etag: etagHeader && etagHeader.length <= 200 ? etagHeader : null,
      };
    } catch (err) {
      if (err instanceof V2FormatError) throw new V2RequestError(url, err.reason);
      throw err;
    }
  }
}
