import { readFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import Fastify from 'fastify';
import { buildApp } from '../src/http/api/app.js';
import { createPostgresDb } from '../src/shared/db/postgres-db.js';
import { createLogger } from '../src/shared/log/logger.js';
import { createQuotaRedis } from '../src/http/quota/create-quota-store.js';
import { benchApiConfig } from './bench-api-config.js';

/**
 * A server of the api benchmark in a process of its own, so that its RSS is an API process's
 * and the load generator never shares its event loop:
 *   node api-server-child.js app <database-url> <redis-url> <quota-prefix>: the whole app;
 *   node api-server-child.js bare <payload-file>: one Fastify route sending the payload as is.
 * Prints "listening <port>"; SIGTERM closes it.
 */
const [mode, ...args] = process.argv.slice(2);
let close: () => Promise<void>;
let port: number;
if (mode === 'app') {
  const [databaseUrl, redisUrl, quotaPrefix] = args as [string, string, string];
  const config = { ...benchApiConfig(databaseUrl, redisUrl), QUOTA_KEY_PREFIX: quotaPrefix };
  const db = createPostgresDb({ connectionString: databaseUrl, max: config.PG_POOL_MAX });
  const redis = createQuotaRedis(redisUrl, config);
  await new Promise<void>((resolve, reject) => {
    if (redis.status === 'ready') resolve();
    redis.once('ready', resolve);
    redis.once('error', reject);
  });
  const app = await buildApp({ db, config, logger: createLogger(config.LOG_LEVEL), redis });
  await app.listen({ host: '127.0.0.1', port: 0 });
  port = (app.server.address() as AddressInfo).port;
  close = async () => {
    await app.close();
    redis.disconnect();
    await db.close();
  };
} else if (mode === 'bare') {
  const payload = await readFile(args[0]!, 'utf8');
  const bare = Fastify();
  bare.get('/bare', (_request, reply) => {
    reply.header('content-type', 'application/json; charset=utf-8').send(payload);
  });
  await bare.listen({ host: '127.0.0.1', port: 0 });
  port = (bare.server.address() as AddressInfo).port;
  close = () => bare.close();
} else {
  throw new Error(
    'usage: api-server-child app <db-url> <redis-url> <quota-prefix> | bare <payload-file>',
  );
}
process.once('SIGTERM', () => void close().then(() => process.exit(0)));
process.stdout.write(`listening ${port}\n`);
