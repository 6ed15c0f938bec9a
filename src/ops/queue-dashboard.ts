import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { FastifyAdapter } from '@bull-board/fastify';
import type { FastifyRequest } from 'fastify';
import type { ApiFastify } from './api-fastify.js';
import type { JobQueues } from '../queue/job-queues.js';

/** Where the dashboard is served. */
export const QUEUE_DASHBOARD_PATH = '/admin/queues';

/**
 * Who is asking: `anonymous` (no session: 401), `user` (signed in, not an administrator: 403),
 * `admin` (the dashboard).
 */
export type DashboardViewer = 'anonymous' | 'user' | 'admin';

export interface QueueDashboardOptions {
  queues: JobQueues;
  /** Works out the viewer from the request (the signed-in session's user and role). */
  viewerOf(request: FastifyRequest): Promise<DashboardViewer>;
}

/**
 * Bull Board at /admin/queues, read-write (retry, promote, remove, clean), for administrators
 * only. Registered as an encapsulated plugin whose onRequest hook refuses everyone else before
 * Bull Board's own routes (pages, assets, API) see the request.
 */
export async function registerQueueDashboard(
  app: ApiFastify,
  options: QueueDashboardOptions,
): Promise<void> {
  const serverAdapter = new FastifyAdapter();
  serverAdapter.setBasePath(QUEUE_DASHBOARD_PATH);
  createBullBoard({
    queues: options.queues.queues.map((q) => new BullMQAdapter(q, { readOnlyMode: false })),
    // @bull-board/fastify 9.10.1 carries its own copy of @bull-board/api (9.10.1, beside the
    // top-level 9.10.2): the same interface, declared twice, so TypeScript needs telling.
    serverAdapter: serverAdapter as unknown as Parameters<
      typeof createBullBoard
    >[0]['serverAdapter'],
    options: { uiConfig: { boardTitle: 'emutrack queues' } },
  });
  await app.register(
    async (scope) => {
      scope.addHook('onRequest', async (request, reply) => {
        const viewer = await options.viewerOf(request);
        if (viewer === 'admin') return;
        const status = viewer === 'anonymous' ? 401 : 403;
        const error =
          viewer === 'anonymous'
            ? { code: 'unauthorized', message: 'sign in as an administrator to see the queues' }
            : { code: 'forbidden', message: 'the queue dashboard is for administrators only' };
        return reply.code(status).header('cache-control', 'no-store').send({ error });
      });
      await scope.register(serverAdapter.registerPlugin());
    },
    { prefix: QUEUE_DASHBOARD_PATH },
  );
}
