/**
 * One API process for the scale-out test: the app exactly as `npm start` builds it (buildApp
 * on the configured Postgres and the quota Redis), listening on a port the OS picks, printed as
 * "listening <port>". SIGTERM closes it.
 */
import type { AddressInfo } from 'node:net';
import { buildApp } from '../../../src/http/api/app.js';
import { openAppContext } from '../../../src/shared/app/app-context.js';
import { loadConfig } from '../../../src/shared/config/config.js';
import { createQuotaRedis } from '../../../src/http/quota/create-quota-store.js';

const config = loadConfig();
const { db, logger } = await openAppContext({ config, migrate: false });
const redis = createQuotaRedis(config.REDIS_URL!, config);
const app = await buildApp({ db, config, logger, redis });
await app.listen({ host: '127.0.0.1', port: 0 });
process.once('SIGTERM', () => {
  void (async () => {
    await app.close();
    redis.disconnect();
    await db.close();
  })();
});
process.stdout.write(`listening ${(app.server.address() as AddressInfo).port}\n`);
