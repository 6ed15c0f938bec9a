import type { Redis } from 'ioredis';
import type { BucketRef, Clock, QuotaDecision, QuotaStore, RefillParams } from './quota-store.js';

/**
 * applyBucket (token-bucket.ts) in Lua, for a batch of operations: one script call reads,
 * refills, decides and writes each operation's bucket atomically, in the order given, so
 * concurrent requests (of one caller or many, on any number of API processes) can never spend
 * the same token twice, and the operations of many requests cost Redis one call. Time is
 * Redis's own TIME (read once per call) unless an operation carries one (tests), so API hosts
 * with skewed clocks agree.
 *
 * ARGV[1] refillAmount, ARGV[2] refillIntervalMs; then per operation 7 values: capacity,
 *   "take" | "refund", cost or amount, now ms or "", its number of keys (1 or 2), daily limit,
 *   ms until the period ends (the last two read only with 2 keys). The period's end is the
 *   service day's, worked out on the API's clock: sent as a duration, not a moment, so a Redis
 *   clock apart from the API's neither cuts the day short nor stretches it.
 * KEYS per operation, in order: the bucket hash {t = tokens, a = anchor ms}, then (with 2 keys)
 *   the daily counter (tokens spent in the period, expiring when it ends): applyBucketAndDaily's
 *   rules.
 * returns per operation 6 values: allowed 0/1, remain, charged, retry-after ms, limited by
 *   (0 none, 1 bucket, 2 daily), next refill ms (0 when full or refill is off).
 */
export const TOKEN_BUCKET_LUA = `
if redis.replicate_commands then redis.replicate_commands() end
local amount = tonumber(ARGV[1])
local interval = tonumber(ARGV[2])
local redisNow
local out = {}
local k = 1
local a = 3
while a <= #ARGV do
  local capacity = tonumber(ARGV[a])
  local op = ARGV[a + 1]
  local n = tonumber(ARGV[a + 2])
  local now
  if ARGV[a + 3] ~= '' then
    now = tonumber(ARGV[a + 3])
  else
    if redisNow == nil then
      local t = redis.call('TIME')
      redisNow = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
    end
    now = redisNow
  end
  local daily = ARGV[a + 4] == '2'
  local bucketKey = KEYS[k]
  local dailyKey = KEYS[k + 1]
  local limit = 0
  local reset = 0
  if daily then
    limit = tonumber(ARGV[a + 5])
    reset = now + tonumber(ARGV[a + 6])
    k = k + 2
  else
    k = k + 1
  end
  a = a + 7
  local stored = redis.call('HMGET', bucketKey, 't', 'a')
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
  local spent = 0
  if daily then spent = tonumber(redis.call('GET', dailyKey) or '0') end
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
      redis.call('SET', dailyKey, string.format('%.0f', spent), 'PX', string.format('%.0f', math.max(1, reset - now)))
    else
      redis.call('DEL', dailyKey)
    end
  end
  if tokens >= capacity then
    redis.call('DEL', bucketKey)
  else
    redis.call('HSET', bucketKey, 't', string.format('%.0f', tokens), 'a', string.format('%.0f', anchor))
    if amount > 0 then
      local ttl = anchor + math.ceil((capacity - tokens) / amount) * interval - now
      redis.call('PEXPIRE', bucketKey, string.format('%.0f', ttl))
    else
      redis.call('PERSIST', bucketKey)
    end
  end
  local remain = tokens
  if daily then remain = math.min(tokens, math.max(0, limit - spent)) end
  local nextRefill = 0
  if amount > 0 and tokens < capacity then nextRefill = anchor + interval end
  out[#out + 1] = allowed
  out[#out + 1] = remain
  out[#out + 1] = charged
  out[#out + 1] = retry
  out[#out + 1] = limitedBy
  out[#out + 1] = nextRefill
end
return out
`;

// Named for the batch form of the script: a connection that defined the one-bucket script under
// the old name keeps it, and never runs this one's arguments through it.
const COMMAND = 'emutrackTokenBuckets';
/** Values per operation in the script's answer. */
const RESULTS_PER_OP = 6;
/** Operations in one script call at most (one call holds Redis for its whole run). */
const MAX_BATCH = 64;

/** ioredis passes the number of keys first. */
type BucketCommand = (
  numberOfKeys: number,
  ...keysAndArgs: (string | number)[]
) => Promise<number[]>;

type Outcome = [number, number, number, number, number, number];

interface PendingOperation {
  keys: string[];
  args: (string | number)[];
  resolve(outcome: Outcome): void;
  reject(err: unknown): void;
}

export interface RedisQuotaStoreOptions {
  redis: Redis;
  refill: RefillParams;
  /** Prepended to every bucket key. */
  keyPrefix: string;
  /** Time source for the script; default: Redis TIME. Tests inject one. */
  clock?: Clock;
}

/**
 * Token buckets in Redis, shared by every API process that uses the same Redis and prefix.
 *
 * Operations are sent at the end of the event-loop turn in which they were asked (setImmediate:
 * the requests that arrived in the same turn go together), and one script call is in flight at
 * a time: operations asked for meanwhile wait for it and go together in the next call. The
 * script applies a call's operations one after the other, in the order they were asked, exactly
 * as separate calls would. Under load, a socket round trip and a script run serve many requests
 * instead of one each.
 */
export class RedisQuotaStore implements QuotaStore {
  private readonly run: BucketCommand;
  private queue: PendingOperation[] = [];
  /** A call is in flight, or one is scheduled for the end of this turn. */
  private sending = false;

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

  private call(bucket: BucketRef, op: 'take' | 'refund', n: number): Promise<Outcome> {
    const { clock, keyPrefix } = this.options;
    const now = clock ? String(Math.floor(clock())) : '';
    const { daily } = bucket;
    return new Promise<Outcome>((resolve, reject) => {
      this.queue.push(
        daily
          ? {
              keys: [keyPrefix + bucket.key, keyPrefix + daily.key],
              args: [
                bucket.capacity,
                op,
                n,
                now,
                2,
                daily.limit,
                daily.resetAtMs - (clock ? clock() : Date.now()),
              ],
              resolve,
              reject,
            }
          : {
              keys: [keyPrefix + bucket.key],
              args: [bucket.capacity, op, n, now, 1, 0, 0],
              resolve,
              reject,
            },
      );
      if (!this.sending) {
        this.sending = true;
        setImmediate(() => this.send());
      }
    });
  }

  /** Sends the operations waiting, as one script call; then the ones that came meanwhile. */
  private send(): void {
    if (this.queue.length === 0) {
      this.sending = false;
      return;
    }
    this.sending = true;
    const batch = this.queue.length <= MAX_BATCH ? this.queue : this.queue.slice(0, MAX_BATCH);
    this.queue = this.queue.length <= MAX_BATCH ? [] : this.queue.slice(MAX_BATCH);
    const { refill } = this.options;
    const keys: string[] = [];
    const args: (string | number)[] = [refill.refillAmount, refill.refillIntervalMs];
    for (const operation of batch) {
      for (const key of operation.keys) keys.push(key);
      for (const arg of operation.args) args.push(arg);
    }
    this.run(keys.length, ...keys, ...args)
      .then(
        (out) => {
          for (let i = 0; i < batch.length; i++) {
            const at = i * RESULTS_PER_OP;
            batch[i]!.resolve(out.slice(at, at + RESULTS_PER_OP) as Outcome);
          }
        },
        (err: unknown) => {
          for (const operation of batch) operation.reject(err);
        },
      )
      .finally(() => this.send());
  }
}
