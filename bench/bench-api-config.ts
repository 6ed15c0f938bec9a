import { randomBytes } from 'node:crypto';
import { loadConfig, type Config } from '../src/shared/config/config.js';

/**
 * The API's configuration for a benchmark: the bench database, Redis for quota, and a bucket
 * (and a page limit) too large to throttle, under a key prefix of its own so runs never share buckets.
 */
export function benchApiConfig(databaseUrl: string, redisUrl: string): Config {
  return loadConfig({
    DATABASE_URL: databaseUrl,
    REDIS_URL: redisUrl,
    LOG_LEVEL: 'warn',
    QUOTA_ANONYMOUS_CAPACITY: '1000000000',
    QUOTA_USER_CAPACITY: '1000000000',
    // The web app's page limit off: the load generator is one address asking for every page.
    WEB_PAGE_BURST: '1000000000',
    WEB_PAGES_PER_MINUTE: '1000000000',
    QUOTA_KEY_PREFIX: `emutrack-bench:${randomBytes(4).toString('hex')}:quota:`,
  });
}
