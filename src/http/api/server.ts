import type { Redis } from 'ioredis';
import { openAppContext } from '../../shared/app/app-context.js';
import {
  closeOnSignals,
  listenOn,
  loadConfigOrExit,
  runMain,
} from '../../shared/app/server-entry.js';
import { buildSeededSite } from '../site/start-site.js';
import { createQuotaRedis } from '../quota/create-quota-store.js';
import { buildApp } from './app.js';
import { closeWithin } from '../../shared/app/http-server-limits.js';

/**
 * `npm start`: the API on HOST:PORT. Postgres at DATABASE_URL or the embedded PGlite database;
 * quota buckets in Redis at REDIS_URL or, without it, in this process. On the embedded database,
 * which only one process can open, it serves the documentation site on HOST:SITE_PORT too (the
 * site's own `npm run site` would find the database busy); with DATABASE_URL the site is a
 * process of its own. Stops cleanly on SIGTERM and SIGINT: no new connections, running requests
 * finish, then Redis and the database close.
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
  const ctx = await openAppContext({ config });
  const { db, logger } = ctx;
  const redis = config.REDIS_URL ? createQuotaRedis(config.REDIS_URL, config) : undefined;
  const app = await buildApp({ db, config, logger, redis });
  const site = db.kind === 'pglite' ? await buildSeededSite(ctx) : undefined;
  if (redis && !(await redisReady(redis, 5_000))) {
    logger.warn('Redis is not reachable yet; quota is decided in this process until it is');
  }

  closeOnSignals(logger, async () => {
    await Promise.all([
      closeWithin(app, config.HTTP_SHUTDOWN_TIMEOUT_MS),
      site ? closeWithin(site, config.HTTP_SHUTDOWN_TIMEOUT_MS) : undefined,
    ]);
    redis?.disconnect();
    await db.close();
  });

  await listenOn(app, config.HOST, config.PORT, 'PORT');
  if (site) await listenOn(site, config.HOST, config.SITE_PORT, 'SITE_PORT');
  logger.info(
    {
      database: db.kind,
      quota: redis ? 'redis (in-process while unreachable)' : 'in-process',
      docs: '/docs',
    },
    'API ready',
  );
  if (site)
    logger.info(
      { database: db.kind, url: site.site.urls.site, rest: site.site.urls.restRoot },
      "site ready (the embedded database is this process's: the site is served here too)",
    );
}

runMain('emutrack api', main);
