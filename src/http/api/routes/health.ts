import type { LogLevel } from 'fastify';
import type { Redis } from 'ioredis';
import type { Db } from '../../../shared/db/db.js';
import type { ApiApp } from '../../app-context.js';

export interface HealthDeps {
  db: Db;
  /** The quota's Redis connection; absent when the quota is kept in process. */
  redis?: Redis;
  /** How long a check may take before it counts as failed. Default 2,000 ms. */
  timeoutMs?: number;
}

type Check = 'ok' | 'unreachable' | 'not configured';

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * /healthz: the process is alive (always 200 while it serves). /readyz: Postgres answers a query
 * and, when configured, Redis answers PING; 503 otherwise. While Redis is down the API still
 * serves (quota in process), but it is not "ready" in the sense an operator wants to know.
 */
export function registerHealth(app: ApiApp, deps: HealthDeps): void {
  const timeoutMs = deps.timeoutMs ?? 2_000;
  // Probes come every few seconds: their request logs are kept out of info, never made louder.
  const logLevel = (app.log.levelVal >= 40 ? app.log.level : 'warn') as LogLevel;
  const hidden = { schema: { hide: true }, logLevel };

  app.get('/healthz', hidden, async () => ({ status: 'ok' }));

  app.get('/readyz', hidden, async (request, reply) => {
    const postgres: Check = await withTimeout(deps.db.query('SELECT 1'), timeoutMs).then(
      () => 'ok',
      (err: unknown) => {
        request.log.warn({ err }, 'readyz: Postgres unreachable');
        return 'unreachable';
      },
    );
    let redis: Check = 'not configured';
    if (deps.redis) {
      const connection = deps.redis;
      redis =
        connection.status === 'ready'
          ? await withTimeout(connection.ping(), timeoutMs).then(
              () => 'ok',
              () => 'unreachable',
            )
          : 'unreachable';
    }
    const ready = postgres === 'ok' && redis !== 'unreachable';
    return reply
      .code(ready ? 200 : 503)
      .send({ status: ready ? 'ready' : 'not ready', postgres, redis });
  });
}
