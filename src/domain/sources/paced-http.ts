import { HttpGetFailure, type HttpGet, type HttpGetResponse } from '../../shared/io/http-get.js';
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

export interface PacedHttpOptions {
  /** Requests per second at most. */
  rate: number;
  clock: PullClock;
  get: HttpGet;
  timeoutMs: number;
  maxBytes: number;
  /** Longest wait a 429 may ask for before the pull gives up. */
  maxWaitSeconds: number;
  /** 429s in a row on one request before the pull gives up. */
  maxRefusals: number;
}

/** A request that failed for good: `reason` is one line naming the status or the field. */
export class SourceRequestError extends EmutrackError {
  constructor(
    readonly url: string,
    readonly reason: string,
  ) {
    super('source_request_failed', `GET ${url}: ${reason}`);
  }
}

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

/**
 * GETs of one source at most `rate` a second, never before a wait the server asked for: a 429
 * is waited out for its Retry-After (or what `extraWait` reads of its body, whichever is longer)
 * and asked again. When the quota left (`x-api-remain`) runs low the pace halves with every such
 * answer, back to `rate` once the quota is high again. Every other answer is returned as it is:
 * what a status or body means is the caller's to say.
 */
export class PacedHttp {
  /** A wait the server asked for (Retry-After, meta.retryAfter): met exactly. */
  private holdUntil = 0;
  /**
   * The pull's own pace, the next request's time at `rate`: met to within a millisecond. The
   * clock counts whole milliseconds and a timer waits at least one, so waiting out less than
   * that would wait a whole millisecond each time and cap any rate at about 1,000 a second; the
   * times accumulate instead (each one `1000 / rate` after the last, or after the answer when
   * that came later), so a fast rate holds on average.
   */
  private paceUntil = 0;
  private slowdown = 1;
  requests = 0;
  refusals = 0;
  waitedMs = 0;

  constructor(private readonly o: PacedHttpOptions) {}

  /** No request before `untilMs` (a wait the server asked for on a success). */
  hold(untilMs: number): void {
    this.holdUntil = Math.max(this.holdUntil, untilMs);
  }

  private async paced(): Promise<void> {
    for (;;) {
      const now = this.o.clock.now();
      const pace = this.paceUntil - now >= 1 ? this.paceUntil - now : 0;
      const ms = Math.max(this.holdUntil - now, pace);
      if (ms <= 0) return;
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
    const now = this.o.clock.now();
    this.paceUntil = Math.max(this.paceUntil, now) + (1000 / this.o.rate) * this.slowdown;
  }

  /** The first answer that is not a 429; a SourceRequestError when there is none to be had. */
  async get(
    url: string,
    headers: Record<string, string>,
    extraWait: (res: HttpGetResponse) => number | undefined = () => undefined,
  ): Promise<HttpGetResponse> {
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
        if (err instanceof HttpGetFailure) throw new SourceRequestError(url, err.reason);
        throw err;
      }
      this.paceAfter(res);
      if (res.status !== 429) return res;
      this.refusals++;
      const now = this.o.clock.now();
      const bodyWait = extraWait(res);
      const headerWait = retryAfterSeconds(res.headers['retry-after'], now);
      const asked = Math.max(headerWait ?? 0, bodyWait ?? 0);
      // No wait given: back off 1, 2, 4 ... 60 s.
      const wait =
        headerWait === undefined && bodyWait === undefined ? Math.min(60, 2 ** refusals) : asked;
      if (wait > this.o.maxWaitSeconds)
        throw new SourceRequestError(
          url,
          `HTTP 429 asks to wait ${Math.ceil(wait)} s, longer than ${this.o.maxWaitSeconds} s`,
        );
      if (refusals + 1 >= this.o.maxRefusals)
        throw new SourceRequestError(url, `HTTP 429 ${refusals + 1} times in a row`);
      this.hold(now + wait * 1000);
    }
  }
}
