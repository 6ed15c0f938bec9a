import type { Redis } from 'ioredis';
import type { BucketRef, Clock, QuotaDecision, QuotaStore, RefillParams } from './quota-store.js';

/**
 * applyBucket (token-bucket.ts) in Lua: one script call reads, refills, decides and writes a
 * bucket atomically, so concurrent requests of one caller (on any number of API processes) can
 * never spend the same token twice. Time is Redis's own TIME unless the caller passes one
 * (tests), so API hosts with skewed clocks agree.
 *
 * KEYS[1] bucket hash {t = tokens, a = anchor ms}
 * ARGV capacity, refillAmount, refillIntervalMs, "take" | "refund", cost or amount, now ms or ""
 * returns {allowed 0/1, tokens left, charged, retry-after ms}
 */
export const TOKEN_BUCKET_LUA = `
if redis.replicate_commands then redis.replicate_commands() end
local capacity = tonumber(ARGV[1])
local amount = tonumber(ARGV[2])
local interval = tonumber(ARGV[3])
local op = ARGV[4]
local n = tonumber(ARGV[5])
local now
if ARGV[6] ~= '' then
  now = tonumber(ARGV[6])
else
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local stored = redis.call('HMGET', KEYS[1], 't', 'a')
local tokens = tonumber(stored[1])
local anchor = tonumber(stored[2])
if tokens == nil or anchor == nil then
  tokens = capacity
  anchor = now
elseif tokens > capacity then
  tokens = capacity
end
if amount > 0 and tokens < capacity then
  local steps = math.floor((now - anchor) / interval)
  if steps > 0 then
    tokens = math.min(capacity, tokens + steps * amount)
    anchor = anchor + steps * interval
  end
end
if tokens >= capacity then anchor = now end
local allowed = 1
local charged = 0
local retry = 0
if op == 'refund' then
  tokens = math.min(capacity, tokens + n)
else
  local cost = math.min(n, capacity)
  if tokens >= cost then
    tokens = tokens - cost
    charged = cost
  else
    allowed = 0
    if amount > 0 then
      retry = anchor + math.ceil((cost - tokens) / amount) * interval - now
    else
      retry = interval
    end
  end
end
if tokens >= capacity then
  redis.call('DEL', KEYS[1])
else
  redis.call('HSET', KEYS[1], 't', string.format('%.0f', tokens), 'a', string.format('%.0f', anchor))
  if amount > 0 then
    local ttl = anchor + math.ceil((capacity - tokens) / amount) * interval - now
    redis.call('PEXPIRE', KEYS[1], string.format('%.0f', ttl))
  else
    redis.call('PERSIST', KEYS[1])
  end
end
return {allowed, tokens, charged, retry}
`;

const COMMAND = 'emutrackTokenBucket';

type BucketCommand = (
  key: string,
  capacity: number,
  refillAmount: number,
  refillIntervalMs: number,
  op: 'take' | 'refund',
  n: number,
  now: string,
) => Promise<[number, number, number, number]>;

export interface RedisQuotaStoreOptions {
  redis: Redis;
  refill: RefillParams;
  /** Prepended to every bucket key. */
  keyPrefix: string;
  /** Time source for the script; default: Redis TIME. Tests inject one. */
  clock?: Clock;
}

/** Token buckets in Redis, shared by every API process that uses the same Redis and prefix. */
export class RedisQuotaStore implements QuotaStore {
  private readonly run: BucketCommand;

  constructor(private readonly options: RedisQuotaStoreOptions) {
    const redis = options.redis as Redis & { [COMMAND]?: BucketCommand };
    // ioredis sends EVALSHA and falls back to EVAL once when the script cache lacks it.
    if (typeof redis[COMMAND] !== 'function') {
      redis.defineCommand(COMMAND, { numberOfKeys: 1, lua: TOKEN_BUCKET_LUA });
    }
    this.run = (redis[COMMAND] as BucketCommand).bind(redis);
  }

  async take(bucket: BucketRef, cost: number): Promise<QuotaDecision> {
    const [allowed, remain, charged, retryAfterMs] = await this.call(bucket, 'take', cost);
    return { allowed: allowed === 1, remain, cost: charged, retryAfterMs, via: 'redis' };
  }

  async refund(bucket: BucketRef, amount: number): Promise<number> {
    return (await this.call(bucket, 'refund', amount))[1];
  }

  private call(bucket: BucketRef, op: 'take' | 'refund', n: number) {
    const { refill, clock, keyPrefix } = this.options;
    return this.run(
      keyPrefix + bucket.key,
      bucket.capacity,
      refill.refillAmount,
      refill.refillIntervalMs,
      op,
      n,
      clock ? String(Math.floor(clock())) : '',
    );
  }
}
