import type { AddressInfo } from 'node:net';
import { buildApp } from '../../src/http/api/app.js';
import { loadConfig } from '../../src/shared/config/config.js';
import { createPostgresDb } from '../../src/shared/db/postgres-db.js';
import { createLogger } from '../../src/shared/log/logger.js';
import { createQuotaRedis } from '../../src/http/quota/create-quota-store.js';

/**
 * The API of the soak benchmark, in a process of its own (its RSS is what is watched):
 *   node soak-server-child.js <database-url> <redis-url> <quota-prefix>
 * The whole app with quota in Redis, buckets too large to throttle. Prints "listening <port>";
 * SIGTERM closes it.
 */
const [databaseUrl, redisUrl, quotaPrefix] = process.argv.slice(2) as [string, string, string];
const config = loadConfig({
  DATABASE_URL: databaseUrl,
  REDIS_URL: redisUrl,
  LOG_LEVEL: 'warn',
  QUOTA_ANONYMOUS_CAPACITY: '1000000000',
  QUOTA_USER_CAPACITY: '1000000000',
  QUOTA_KEY_PREFIX: quotaPrefix,
});
const db = createPostgresDb({ connectionString: databaseUrl, max: config.PG_POOL_MAX });
const redis = createQuotaRedis(redisUrl, config);
await new Promise<void>((resolve, reject) => {
  if (redis.status === 'ready') resolve();
  redis.once('ready', resolve);
  redis.once('error', reject);
});
const app = await buildApp({ db, config, logger: createLogger(config.LOG_LEVEL), redis });
await app.listen({ host: '127.0.0.1', port: 0 });
process.once('SIGTERM', () => {
  void (async () => {
    await app.close();
    redis.disconnect();
    await db.close();
    process.exit(0);
  })();
});
process.stdout.write(`listening ${(app.server.address() as AddressInfo).port}\n`);
