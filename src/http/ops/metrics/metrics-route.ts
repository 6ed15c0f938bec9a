import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { ApiApp } from '../../app-context.js';
import type { OperationsMetrics } from './operations-metrics.js';

const sha256 = (s: string) => createHash('sha256').update(s).digest();

/** Whether the request carries `Authorization: Bearer <token>` (compared in constant time). */
export function hasBearerToken(request: FastifyRequest, token: string): boolean {
  const header = request.headers.authorization;
  const match = typeof header === 'string' ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
  return match !== null && timingSafeEqual(sha256(match[1]!), sha256(token));
}

export interface MetricsRouteOptions {
  metrics: OperationsMetrics;
  /** METRICS_TOKEN; undefined = no route (GET /metrics is a 404 like any unknown path). */
  token: string | undefined;
}

/**
 * GET /metrics in the Prometheus text format, for a scraper carrying the token. The latency of
 * every request is observed in an onResponse hook on the instance given (the root app, so that
 * it sees every route).
 */
export function registerMetricsRoute(app: ApiApp, options: MetricsRouteOptions): void {
  const { metrics, token } = options;
  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions;
    const schema = route.schema as { operationId?: string } | undefined;
    metrics.http.observe({
      operation: schema?.operationId ?? route.url ?? 'unmatched',
      method: request.method,
      status: reply.statusCode,
      seconds: reply.elapsedTime / 1000,
    });
  });
  if (token === undefined) return;
  app.get('/metrics', { schema: { hide: true } }, async (request, reply) => {
    if (!hasBearerToken(request, token)) {
      return reply
        .code(401)
        .header('www-authenticate', 'Bearer realm="metrics"')
        .send({ error: { code: 'unauthorized', message: 'GET /metrics needs the metrics token' } });
    }
    const text = await metrics.render();
    return reply
      .header('content-type', metrics.contentType)
      .header('cache-control', 'no-store')
      .send(text);
  });
}
