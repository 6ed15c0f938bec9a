import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config/config.js';
import type { BucketRef, QuotaDecision, QuotaStore } from '../quota/quota-store.js';
import { ApiError } from './api-error.js';
import { QUOTA_HEADERS, type ApiMeta } from './envelope.js';

/** What one request has been charged so far. */
interface RequestQuota {
  bucket: BucketRef;
  /** Tokens taken and not given back. */
  held: number;
  decision?: QuotaDecision;
  meta?: ApiMeta;
}

const requestQuota = new WeakMap<FastifyRequest, RequestQuota>();

/**
 * The quota as the API applies it. Every /api/v2 request is charged once, before its work is
 * done: `charge(cost)` takes the tokens or throws rate_limited. Operations whose cost depends on
 * what they return (per record) reserve the most they can cost (a full page at the effective
 * limit, rounded up) and `settle` gives the unused part back as soon as they know; a request
 * that fails after charging gets everything back. So `remain` never goes below zero and never
 * counts tokens that another concurrent request already spent. Requests that are refused or
 * fail validation cost 0 and report the caller's level.
 */
export class QuotaGate {
  constructor(
    private readonly store: QuotaStore,
    private readonly config: Config,
  ) {}

  /** The caller's bucket: anonymous callers by client address (X-Forwarded-For only via TRUSTED_PROXIES). */
  bucketFor(request: FastifyRequest): BucketRef {
    let state = requestQuota.get(request);
    if (!state) {
      const ip = request.ip.startsWith('::ffff:') ? request.ip.slice(7) : request.ip;
      state = {
        bucket: { key: `anon:${ip}`, capacity: this.config.QUOTA_ANONYMOUS_CAPACITY },
        held: 0,
      };
      requestQuota.set(request, state);
    }
    return state.bucket;
  }

  /** Takes `cost` tokens or throws ApiError rate_limited (with the wait in whole seconds, rounded up). */
  async charge(request: FastifyRequest, cost: number): Promise<void> {
    const bucket = this.bucketFor(request);
    const state = requestQuota.get(request)!;
    const decision = await this.store.take(bucket, cost);
    state.decision = decision;
    if (!decision.allowed) {
      const retryAfter = Math.max(1, Math.ceil(decision.retryAfterMs / 1000));
      state.meta = { remain: decision.remain, cost: 0, retryAfter };
      throw new ApiError(
        'rate_limited',
        `quota exhausted: this request costs ${Math.min(cost, bucket.capacity)}, ${decision.remain} left; retry in ${retryAfter} s`,
        retryAfter,
      );
    }
    state.held = decision.cost;
    state.meta = { remain: decision.remain, cost: decision.cost };
  }

  /** Keeps `actualCost` of what `charge` took (never more) and gives the rest back. */
  async settle(request: FastifyRequest, actualCost: number): Promise<void> {
    const state = requestQuota.get(request);
    if (!state?.decision || !state.meta) return;
    const keep = Math.min(actualCost, state.held);
    const refund = state.held - keep;
    if (refund > 0) {
      try {
        const remain = await this.store.refund(state.bucket, refund, state.decision.via);
        state.meta = { remain, cost: keep };
        state.held = keep;
      } catch {
        // Redis went away between charge and settle: the reservation stays spent (logged by the store).
      }
    }
  }

  /** Gives back everything this request holds (it failed). */
  async release(request: FastifyRequest): Promise<void> {
    const state = requestQuota.get(request);
    if (state && state.held > 0) await this.settle(request, 0);
  }

  /** The meta of this request: what it was charged, or the caller's level at cost 0. */
  async meta(request: FastifyRequest): Promise<ApiMeta> {
    this.bucketFor(request);
    const state = requestQuota.get(request)!;
    if (!state.meta) {
      try {
        const decision = await this.store.take(state.bucket, 0);
        state.meta = { remain: decision.remain, cost: 0 };
      } catch {
        state.meta = { remain: 0, cost: 0 };
      }
    }
    return state.meta;
  }

  /** Sets x-api-remain, x-api-cost and, when throttled, Retry-After. */
  setHeaders(reply: FastifyReply, meta: ApiMeta): void {
    reply.header(QUOTA_HEADERS.remain, meta.remain);
    reply.header(QUOTA_HEADERS.cost, meta.cost);
    if (meta.retryAfter !== undefined) reply.header(QUOTA_HEADERS.retryAfter, meta.retryAfter);
  }
}
