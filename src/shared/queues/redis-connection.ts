import { Redis, type RedisOptions } from 'ioredis';

export type RedisRole = 'worker' | 'producer' | 'command';

/**
 * An ioredis connection to REDIS_URL. BullMQ is always handed a client instance (its own
 * fallback loads ioredis through `require`, which ESM lacks).
 *
 * - `worker`: commands wait through Redis restarts (`maxRetriesPerRequest: null`, which BullMQ
 *   requires for workers' blocking calls).
 * - `producer` (a long-running process that adds jobs, the API): reconnects for ever, but a
 *   command fails after a few reconnection attempts instead of hanging.
 * - `command` (a one-shot CLI command): as producer, and gives up connecting after about three
 *   seconds, so an operator sees an error instead of a hang when Redis is down.
 */
export function createRedisConnection(
  url: string,
  role: RedisRole,
  overrides: RedisOptions = {},
): Redis {
  const options: RedisOptions =
    role === 'worker'
      ? { maxRetriesPerRequest: null }
      : role === 'producer'
        ? { maxRetriesPerRequest: 2, connectTimeout: 5_000 }
        : {
            maxRetriesPerRequest: 2,
            connectTimeout: 3_000,
            retryStrategy: (times) => (times > 5 ? null : times * 200),
          };
  return new Redis(url, { connectionName: `emutrack-${role}`, ...options, ...overrides });
}

/** Closes a connection politely (QUIT), falling back to a hard disconnect when that fails. */
export async function closeRedisConnection(connection: Redis): Promise<void> {
  if (connection.status === 'end') return;
  try {
    await connection.quit();
  } catch {
    connection.disconnect();
  }
}
