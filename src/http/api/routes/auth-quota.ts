import type { Config } from '../../../shared/config/config.js';
import type { RequestQuota } from '../request-quota.js';

/** AuthQuotaSummary of the caller's bucket as this request left it. */
export async function authQuota(quota: RequestQuota, config: Config) {
  const meta = await quota.meta();
  const next = quota.nextRefillAtMs;
  return {
    tokenLimit: quota.bucket.capacity,
    remain: meta.remain,
    refillAmount: config.QUOTA_REFILL_AMOUNT,
    refillIntervalSeconds: config.QUOTA_REFILL_INTERVAL_SECONDS,
    ...(next !== undefined ? { nextRefillAt: Math.ceil(next / 1000) } : {}),
  };
}
