import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { allJobs } from '../../jobs/index.js';
import type { Config } from '../shared/config/config.js';

/**
 * `node dist/src/healthcheck/healthcheck-main.js api|site|worker`: the container healthchecks of
 * docker-compose.yml (the image has no curl). Exit 0 when healthy, 1 with one line otherwise.
 * api: GET /readyz answers 200 (Postgres, and Redis when configured). site: its REST index
 * answers 200 (it reads the database). worker: a BullMQ worker of this QUEUE_PREFIX is
 * connected to Redis (BullMQ names its connections; a hung or dead worker drops out).
 */
export type HealthTarget = 'api' | 'site' | 'worker';

const TIMEOUT_MS = 4_000;

export async function checkHealth(target: HealthTarget, config: Config): Promise<string> {
  if (target === 'worker') return checkWorker(config);
  const url =
    target === 'api'
      ? `http://127.0.0.1:${config.PORT}/readyz`
      : `http://127.0.0.1:${config.SITE_PORT}/wp-json/`;
  const response = await fetch(url, { signal: AbortSignal.timeout(TIMEOUT_MS) });
  if (response.status !== 200) throw new Error(`${url} answered ${response.status}`);
  return `${target}: ${url} answered 200`;
}

async function checkWorker(config: Config): Promise<string> {
  if (!config.REDIS_URL) throw new Error('worker: REDIS_URL is not set (no queue to watch)');
  const connection = new Redis(config.REDIS_URL, {
    maxRetriesPerRequest: 1,
    connectTimeout: TIMEOUT_MS,
    lazyConnect: true,
  });
  const name = allJobs[0].name;
  const queue = new Queue(name, { connection, prefix: config.QUEUE_PREFIX });
  try {
    const workers = await queue.getWorkersCount();
    if (workers === 0) throw new Error(`worker: no worker connected on queue ${name}`);
    return `worker: ${workers} connected on queue ${name}`;
  } finally {
    await queue.close();
    connection.disconnect();
  }
}
