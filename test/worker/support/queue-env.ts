import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { afterEach, beforeEach } from 'vitest';
import type { AppContext } from '../../../src/shared/app/app-context.js';
import { loadConfig, type Config } from '../../../src/shared/config/config.js';
import { closeWithin } from '../../../src/worker/graceful-shutdown.js';
import { JobQueues } from '../../../src/worker/job-queues.js';
import { jobRetentionFromConfig } from '../../../src/shared/queues/job-options.js';
import { JobWorkers, type WorkerTuning } from '../../../src/worker/job-workers.js';
import { createRedisConnection } from '../../../src/shared/queues/redis-connection.js';
import { useTestDatabase, type TestDatabase } from '../../helpers/test-db.js';
import { TEST_REDIS_URL } from '../../helpers/test-env.js';

export interface QueueEnv {
  /** This test's BullMQ key prefix. */
  readonly prefix: string;
  readonly database: TestDatabase;
  /** Configuration for this test's database and prefix; retries are fast unless overridden. */
  config(env?: Record<string, string>): Config;
  ctx(env?: Record<string, string>): AppContext;
  /** The environment a child worker process needs to share this test's database and prefix. */
  childEnv(env?: Record<string, string>): Record<string, string>;
  /** A worker connection, disconnected after the test. */
  connection(): Redis;
  /** Queues on their own connection, closed after the test. */
  queues(env?: Record<string, string>): JobQueues;
  /** Workers for every job on their own connection, closed after the test. */
  workers(ctx: AppContext, queues: JobQueues, tuning?: Partial<WorkerTuning>): JobWorkers;
  /** Runs fn after the test (before the prefix's keys are deleted), last registered first. */
  defer(fn: () => Promise<unknown>): void;
}

const noop = () => {};
const FAST_RETRIES = { JOB_ATTEMPTS: '3', JOB_BACKOFF_MS: '100' };

/**
 * A fresh database per test file (useTestDatabase) and a fresh BullMQ prefix per test; after
 * each test, everything opened through the env is closed and the prefix's keys are deleted.
 */
export function useQueueEnv(): QueueEnv {
  const database = useTestDatabase();
  let prefix = '';
  let cleanups: (() => Promise<unknown>)[] = [];
  beforeEach(() => {
    prefix = `emutrack-test-${randomBytes(5).toString('hex')}`;
    cleanups = [];
  });
  afterEach(async () => {
    try {
      // A cleanup stuck on a job that never ends must not keep the keys from being deleted.
      for (const fn of cleanups.reverse()) await closeWithin(() => fn().then(noop, noop), 15_000);
    } finally {
      await deleteKeys(prefix);
    }
  });
  const env: QueueEnv = {
    get prefix() {
      return prefix;
    },
    get database() {
      return database.current;
    },
    config: (extra = {}) =>
      loadConfig({
        DATABASE_URL: database.current.url,
        REDIS_URL: TEST_REDIS_URL,
        QUEUE_PREFIX: prefix,
        LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
        ...FAST_RETRIES,
        ...extra,
      }),
    ctx: (extra = {}) => {
      const config = env.config(extra);
      return { config, db: database.current.db, logger: pino({ level: config.LOG_LEVEL }) };
    },
    childEnv: (extra = {}) => ({
      DATABASE_URL: database.current.url,
      REDIS_URL: TEST_REDIS_URL,
      QUEUE_PREFIX: prefix,
      LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'warn',
      ...FAST_RETRIES,
      ...extra,
    }),
    connection: () => {
      const c = createRedisConnection(TEST_REDIS_URL, 'worker');
      env.defer(async () => c.disconnect());
      return c;
    },
    queues: (extra = {}) => {
      const config = env.config(extra);
      const q = new JobQueues({
        connection: env.connection(),
        prefix: config.QUEUE_PREFIX,
        retention: jobRetentionFromConfig(config),
      });
      env.defer(() => q.close());
      return q;
    },
    workers: (ctx, queues, tuning = {}) => {
      const w = new JobWorkers(ctx, {
        connection: env.connection(),
        queues,
        tuning: { concurrency: ctx.config.WORKER_CONCURRENCY, ...tuning },
      });
      env.defer(() => w.close());
      return w;
    },
    defer: (fn) => {
      cleanups.push(fn);
    },
  };
  return env;
}

/** Deletes every key under a BullMQ prefix (all queues, flows and schedulers of a test). */
export async function deleteKeys(prefix: string): Promise<void> {
  const redis = new Redis(TEST_REDIS_URL);
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length > 0) await redis.del(...keys);
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}
