import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { buildApp, type AppDeps, type ApiApp } from '../../../src/http/api/app.js';
import { loadConfig, type Config } from '../../../src/shared/config/config.js';
import type { Db } from '../../../src/shared/db/db.js';
import { LOG_REDACT_PATHS, type Logger } from '../../../src/shared/log/logger.js';
import { TEST_REDIS_URL } from '../../helpers/test-env.js';

/**
 * A config as the environment would give it, with this test's own quota key prefix. Failures
 * are free here (QUOTA_MIN_COST 0, the setting that keeps the seed's rule): the
 * operations' tests count their own charges; test/api/quota-rules.test.ts checks the default
 * (every request costs at least 1) by asking for it.
 */
export function testConfig(overrides: Record<string, string> = {}): Config {
  return loadConfig({
    LOG_LEVEL: 'silent',
    QUOTA_MIN_COST: '0',
    QUOTA_KEY_PREFIX: `emutrack-test:${randomBytes(6).toString('hex')}:quota:`,
    ...overrides,
  });
}

/** A pino logger whose lines the test can read. */
export function capturingLogger(): { logger: Logger; lines: () => Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line) lines.push(JSON.parse(line));
      done();
    },
  });
  return {
    logger: pino({ level: 'info', redact: LOG_REDACT_PATHS }, sink),
    lines: () => lines,
  };
}

export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}

/** Deletes every key under a prefix (a test's quota buckets). */
export async function deleteKeys(redis: Redis, prefix: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    cursor = next;
    if (keys.length > 0) await redis.del(...keys);
  } while (cursor !== '0');
}

export function testRedis(url = TEST_REDIS_URL): Redis {
  return new Redis(url, { maxRetriesPerRequest: 1, lazyConnect: false });
}

export async function makeApp(
  db: Db,
  options: Partial<Omit<AppDeps, 'db'>> & { env?: Record<string, string> } = {},
): Promise<ApiApp> {
  const { env, ...deps } = options;
  return buildApp({
    db,
    config: deps.config ?? testConfig(env),
    logger: deps.logger ?? silentLogger(),
    ...deps,
  });
}
