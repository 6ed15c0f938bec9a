import type { Redis } from 'ioredis';
import type { BucketRef, Clock, QuotaDecision, QuotaStore, RefillParams } from './quota-store.js';

/**
 * applyBucket (token-bucket.ts) in Lua: one script call reads, refills, decides and writes a
 * bucket atomically, so concurrent requests of one caller (on any number of API processes) can
 * never spend the same token twice. Time is Redis's own TIME unless the caller passes one
 * (tests), so API hosts with skewed clocks agree.
 *
 * KEYS[1] bucket hash {t = tokens, a = anchor ms}; KEYS[2] (optional) the daily counter (tokens
 * spent in the period, expiring when it ends): applyBucketAndDaily's rules.
 * ARGV capacity, refillAmount, refillIntervalMs, "take" | "refund", cost or amount, now ms or "",
 *   then with KEYS[2]: daily limit, period end ms
 * returns {allowed 0/1, remain, charged, retry-after ms, limited by (0 none, 1 bucket, 2 daily),
 *   next refill ms (0 when full or refill is off)}
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
local daily = #KEYS > 1
local limit = 0
local reset = 0
local spent = 0
if daily then
  limit = tonumber(ARGV[7])
  reset = tonumber(ARGV[8])
  spent = tonumber(redis.call('GET', KEYS[2]) or '0')
end
local allowed = 1
local charged = 0
local retry = 0
local limitedBy = 0
if op == 'refund' then
  tokens = math.min(capacity, tokens + n)
  if daily then spent = math.max(0, spent - n) end
else
  local cost = math.min(n, capacity)
  local bucketWait = 0
  if tokens < cost then
    if amount > 0 then
      bucketWait = anchor + math.ceil((cost - tokens) / amount) * interval - now
    else
      bucketWait = interval
    end
  end
  if daily and spent + cost > limit then
    allowed = 0
    limitedBy = 2
    retry = math.max(reset - now, bucketWait, 1)
  elseif tokens >= cost then
    tokens = tokens - cost
    charged = cost
    if daily then spent = spent + cost end
  else
    allowed = 0
    limitedBy = 1
    retry = bucketWait
  end
end
if daily then
  if spent > 0 then
    redis.call('SET', KEYS[2], string.format('%.0f', spent), 'PX', string.format('%.0f', math.max(1, reset - now)))
  else
    redis.call('DEL', KEYS[2])
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
local remain = tokens
if daily then remain = math.min(tokens, math.max(0, limit - spent)) end
local nextRefill = 0
if amount > 0 and tokens < capacity then nextRefill = anchor + interval end
return {allowed, remain, charged, retry, limitedBy, nextRefill}
`;

const COMMAND = 'emutrackTokenBucket';

/** ioredis passes the number of keys first (the command takes one or two). */
type BucketCommand = (
  numberOfKeys: 1 | 2,
  ...keysAndArgs: (string | number)[]
) => Promise<[number, number, number, number, number, number]>;

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
      redis.defineCommand(COMMAND, { lua: TOKEN_BUCKET_LUA });
    }
    this.run = (redis[COMMAND] as BucketCommand).bind(redis);
  }

  async take(bucket: BucketRef, cost: number): Promise<QuotaDecision> {
    const [allowed, remain, charged, retryAfterMs, limitedBy, nextRefill] = await this.call(
      bucket,
      'take',
      cost,
    );
    return {
      allowed: allowed === 1,
      remain,
      cost: charged,
      retryAfterMs,
      via: 'redis',
      ...(nextRefill > 0 ? { nextRefillAtMs: nextRefill } : {}),
      ...(limitedBy === 1 ? { limitedBy: 'bucket' as const } : {}),
      ...(limitedBy === 2 ? { limitedBy: 'daily' as const } : {}),
    };
  }

  async refund(bucket: BucketRef, amount: number): Promise<number> {
    return (await this.call(bucket, 'refund', amount))[1];
  }

  private call(bucket: BucketRef, op: 'take' | 'refund', n: number) {
    const { refill, clock, keyPrefix } = this.options;
    const args = [
      bucket.capacity,
      refill.refillAmount,
      refill.refillIntervalMs,
      op,
      n,
      clock ? String(Math.floor(clock())) : '',
    ];
    const { daily } = bucket;
    if (!daily) return this.run(1, keyPrefix + bucket.key, ...args);
    return this.run(
      2,
      keyPrefix + bucket.key,
      keyPrefix + daily.key,
      ...args,
      daily.limit,
      daily.resetAtMs,
    );
  }
}
