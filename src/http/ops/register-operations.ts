import type { FastifyRequest } from 'fastify';
import type { ApiApp } from '../app-context.js';
import { signedInBrowser } from '../session/web-session.js';
import type { Config } from '../../shared/config/config.js';
import type { Db } from '../../shared/db/db.js';
import type { Logger } from '../../shared/log/logger.js';
import { OperationsMetrics } from './metrics/operations-metrics.js';
import { registerMetricsRoute } from './metrics/metrics-route.js';
import { allJobs } from '../../../jobs/index.js';
import { defaultJobOptions, jobRetentionFromConfig } from '../../shared/queues/job-options.js';
import { openQueues, type QueueList } from '../../shared/queues/open-queues.js';
import {
  closeRedisConnection,
  createRedisConnection,
} from '../../shared/queues/redis-connection.js';
import { registerQueueDashboard, type DashboardViewer } from './queue-dashboard.js';
import { registerSourcesPage } from './sources-page.js';

/** The viewer of the signed-in web session (a banned, revoked or expired one is no session). */
export async function sessionViewer(request: FastifyRequest): Promise<DashboardViewer> {
  const signedIn = await signedInBrowser(request);
  if (!signedIn) return 'anonymous';
  return signedIn.user.role === 'admin' ? 'admin' : 'user';
}

export interface OperationsDeps {
  db: Db;
  config: Config;
  logger: Logger;
  /**
   * The queues the metrics count and the dashboard shows. Default: with REDIS_URL, queues on a
   * connection of their own (closed with the app); without, none (no dashboard, no depths).
   */
  queues?: QueueList;
  /**
   * Who is asking for the dashboard. Default: the signed-in web session's user (the `token`
   * cookie, see signedInBrowser): none = anonymous, role admin = admin, any other role = user.
   */
  viewerOf?: (request: FastifyRequest) => Promise<DashboardViewer>;
}

/**
 * What operators use, on the API app: request metrics (hook on every route), GET /metrics behind
 * METRICS_TOKEN, and for administrators Bull Board at /admin/queues and the sources at
 * /admin/sources. Call once on the root app.
 */
export async function registerOperations(app: ApiApp, deps: OperationsDeps): Promise<void> {
  const { config, logger } = deps;
  let queues = deps.queues;
  if (!queues && config.REDIS_URL) {
    const connection = createRedisConnection(config.REDIS_URL, 'producer');
    const ownQueues = openQueues(
      allJobs.map((job) => job.name),
      {
        connection,
        prefix: config.QUEUE_PREFIX,
        jobOptions: defaultJobOptions(jobRetentionFromConfig(config)),
        onError: (err) => logger.warn({ err: err.message }, 'queues: redis connection error'),
      },
    );
    app.addHook('onClose', async () => {
      await Promise.allSettled(ownQueues.map((q) => q.close()));
      await closeRedisConnection(connection);
    });
    queues = { queues: ownQueues };
  }
  const metrics = new OperationsMetrics({ db: deps.db, queues, logger });
  registerMetricsRoute(app, { metrics, token: config.METRICS_TOKEN });
  await registerSourcesPage(app, deps.db);
  if (queues) {
    await registerQueueDashboard(app, {
      queues,
      viewerOf: deps.viewerOf ?? sessionViewer,
    });
  }
}
