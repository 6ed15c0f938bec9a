import type { Redis } from 'ioredis';
import { openAppContext } from '../../shared/app/app-context.js';
import { closeOnSignals, loadConfigOrExit, runMain } from '../../shared/app/server-entry.js';
import { createQuotaRedis } from '../quota/create-quota-store.js';
import { buildApp } from './app.js';
import { closeWithin } from '../../shared/app/http-server-limits.js';

/**
 * `npm start`: the API on HOST:PORT. Postgres at DATABASE_URL or the embedded PGlite database;
 * quota buckets in Redis at REDIS_URL or, without it, in this process. Stops cleanly on SIGTERM
 * and SIGINT: no new connections, running requests finish, then Redis and the database close.
 */
/** Whether the connection becomes ready within `ms` (requests before that use the in-process quota). */
function redisReady(redis: Redis, ms: number): Promise<boolean> {
  if (redis.status === 'ready') return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      redis.off('ready', onReady);
      resolve(false);
    }, ms);
    const onReady = () => {
      clearTimeout(timer);
      resolve(true);
    };
    redis.once('ready', onReady);
  });
}

async function main(): Promise<void> {
  const config = loadConfigOrExit();
  const { db, logger } = await openAppContext({ config });
  const redis = config.REDIS_URL ? createQuotaRedis(config.REDIS_URL, config) : undefined;
  const app = await buildApp({ db, config, logger, redis });
  if (redis && !(await redisReady(redis, 5_000))) {
    logger.warn('Redis is not reachable yet; quota is decided in this process until it is');
  }

  closeOnSignals(logger, async () => {
    await closeWithin(app, config.HTTP_SHUTDOWN_TIMEOUT_MS);
    redis?.disconnect();
    await db.close();
  });

  await app.listen({ host: config.HOST, port: config.PORT });
  logger.info(
    {
      database: db.kind,
      quota: redis ? 'redis (in-process while unreachable)' : 'in-process',
      docs: '/docs',
    },
    'API ready',
  );
}

runMain(main);
