import { HttpGetFailure, type HttpGet, type HttpGetResponse } from '../../shared/io/http-get.js';
import { parseEnvelope, parsePage, V2FormatError, type V2Page } from './v2-page.js';
import { EmutrackError } from '../../shared/errors/emutrack-error.js';

/** Time as a pull sees it: injected, so that tests wait without waiting. */
export interface PullClock {
  /** Milliseconds since the epoch. */
  now(): number;
  sleep(ms: number): Promise<void>;
}

export const realClock: PullClock = {
  now: () => Date.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

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

/** A request that failed for good: `reason` is one line naming the status or the field. */
export class V2RequestError extends EmutrackError {
  constructor(
    readonly url: string,
    readonly reason: string,
  ) {
    super('source_request_failed', `GET ${url}: ${reason}`);
  }
}

/** What one page request gave: the page, or "unchanged" (a 304 to If-None-Match). */
export type PageAnswer =
  { kind: 'page'; page: V2Page; etag: string | null } | { kind: 'unchanged' };

/** Seconds of a Retry-After header: delta-seconds or an HTTP date; undefined if neither. */
export function retryAfterSeconds(value: string | undefined, nowMs: number): number | undefined {
  if (value === undefined) return undefined;
  const v = value.trim();
  if (/^\d+(\.\d+)?$/.test(v)) return Number(v);
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, (at - nowMs) / 1000);
}

function headerNumber(value: string | undefined): number | undefined {
  if (value === undefined || !/^\s*-?\d+(\.\d+)?\s*$/.test(value)) return undefined;
  return Number(value);
}

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

/**
 * Asks one v2 server for pages of /api/v2/records/daily, at most `rate` requests a second and
 * never before a wait the server asked for (Retry-After, meta.retryAfter) has passed. When the
 * quota left (`x-api-remain`) runs low the pace halves with every such answer, so that a steady
 * pull meets fewer 429s; it is back to `rate` once the quota is high again. URLs are built from
 * the configured base and fixed paths only: nothing the server sends is followed (a redirect is
 * an error, and the cursor it gives is checked before it is sent back).
 */
export class V2Client {
  private nextAt = 0;
  private slowdown = 1;
  requests = 0;
  refusals = 0;
  waitedMs = 0;

  constructor(private readonly o: V2ClientOptions) {}

  /** The URL of one page: base + fixed path + the query we build (nothing else). */
  pageUrl(ymd: string, limit: number, cursor: string): string {
    const q = new URLSearchParams({ date: ymd, limit: String(limit) });
    if (cursor !== '') q.set('cursor', cursor);
    return `${this.o.baseUrl}/api/v2/records/daily?${q.toString()}`;
  }

  private hold(untilMs: number): void {
    this.nextAt = Math.max(this.nextAt, untilMs);
  }

  private async paced(): Promise<void> {
    for (let now = this.o.clock.now(); now < this.nextAt; now = this.o.clock.now()) {
      const ms = this.nextAt - now;
      this.waitedMs += ms;
      await this.o.clock.sleep(ms);
    }
  }

  /** After an answer: the next request waits a pace interval, longer while quota is low. */
  private paceAfter(res: HttpGetResponse): void {
    const remain = headerNumber(res.headers['x-api-remain']);
    const cost = headerNumber(res.headers['x-api-cost']) ?? 1;
    if (remain !== undefined && remain < 2 * Math.max(1, cost))
      this.slowdown = Math.min(64, this.slowdown * 2);
    else if (remain !== undefined) this.slowdown = 1;
    this.hold(this.o.clock.now() + (1000 / this.o.rate) * this.slowdown);
  }

  async page(ymd: string, limit: number, cursor: string, etag?: string): Promise<PageAnswer> {
    const url = this.pageUrl(ymd, limit, cursor);
    const headers: Record<string, string> = {
      accept: 'application/json',
      'user-agent': this.o.userAgent,
    };
    if (this.o.apiKey !== undefined) headers.authorization = `Bearer ${this.o.apiKey}`;
    if (etag !== undefined) headers['if-none-match'] = etag;
    for (let refusals = 0; ; refusals++) {
      await this.paced();
      let res: HttpGetResponse;
      this.requests++;
      try {
        res = await this.o.get({
          url,
          headers,
          timeoutMs: this.o.timeoutMs,
          maxBytes: this.o.maxBytes,
        });
      } catch (err) {
        if (err instanceof HttpGetFailure) throw new V2RequestError(url, err.reason);
        throw err;
      }
      this.paceAfter(res);
      if (res.status === 429) {
        this.refusals++;
        const now = this.o.clock.now();
        let metaWait: number | undefined;
        try {
          metaWait = parseEnvelope(res.body, res.headers['content-type']).meta?.retryAfter;
        } catch {
          metaWait = undefined;
        }
        const headerWait = retryAfterSeconds(res.headers['retry-after'], now);
        const asked = Math.max(headerWait ?? 0, metaWait ?? 0);
        // No wait given: back off 1, 2, 4 ... 60 s.
        const wait =
          headerWait === undefined && metaWait === undefined ? Math.min(60, 2 ** refusals) : asked;
        if (wait > this.o.maxWaitSeconds)
          throw new V2RequestError(
            url,
            `HTTP 429 asks to wait ${Math.ceil(wait)} s, longer than ${this.o.maxWaitSeconds} s`,
          );
        if (refusals + 1 >= this.o.maxRefusals)
          throw new V2RequestError(url, `HTTP 429 ${refusals + 1} times in a row`);
        this.hold(now + wait * 1000);
        continue;
      }
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
          this.hold(this.o.clock.now() + env.meta.retryAfter * 1000);
        }
        if (!env.ok) throw new V2FormatError('ok: false on an HTTP 200 answer');
        const etagHeader = res.headers.etag;
        return {
          kind: 'page',
          page: parsePage(env),
          etag: etagHeader && etagHeader.length <= 200 ? etagHeader : null,
        };
      } catch (err) {
        if (err instanceof V2FormatError) throw new V2RequestError(url, err.reason);
        throw err;
      }
    }
  }
}
