import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { FastifyAdapter } from '@bull-board/fastify';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ApiApp } from '../app-context.js';
import { html } from '../html/html.js';
import { answerSwitch } from '../web/web-request.js';
import { personalView, sendPersonalPage } from '../web/personal-page.js';
import { loginUrl } from '../session/web-session.js';
import type { QueueList } from '../../shared/queues/open-queues.js';

/** Where the dashboard is served. */
export const QUEUE_DASHBOARD_PATH = '/admin/queues';

/**
 * Who is asking: `anonymous` (no session: a page redirects to /login, the JSON API answers 401),
 * `user` (signed in, not an administrator: 403, a page or JSON), `admin` (the dashboard).
 */
export type DashboardViewer = 'anonymous' | 'user' | 'admin';

export interface QueueDashboardOptions {
  queues: QueueList;
  /** Works out the viewer from the request (the signed-in session's user and role). */
  viewerOf(request: FastifyRequest): Promise<DashboardViewer>;
}

/**
 * Bull Board at /admin/queues, read-write (retry, promote, remove, clean), for administrators
 * only. Registered as an encapsulated plugin whose onRequest hook refuses everyone else before
 * Bull Board's own routes (pages, assets, API) see the request.
 */
export async function registerQueueDashboard(
  app: ApiApp,
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
        if (isPageRequest(request)) return refusePage(viewer, request, reply);
        const status = viewer === 'anonymous' ? 401 : 403;
        const error =
          viewer === 'anonymous'
            ? { code: 'unauthorized', message: 'sign in as an administrator to see the queues' }
            : { code: 'forbidden', message: 'the queue dashboard is for administrators only' };
        return reply.code(status).header('cache-control', 'no-store').send({ error });
      });
      // Bull Board's page links Google Fonts (IBM Plex), which an offline or locked-down
      // operator network cannot load (the page waits on it); its CSS falls back to sans-serif.
      scope.addHook('onSend', async (_request, reply, payload) => {
        const type = reply.getHeader('content-type');
        if (typeof payload !== 'string' || !String(type ?? '').startsWith('text/html'))
          return payload;
        return withoutExternalFonts(payload);
      });
      await scope.register(serverAdapter.registerPlugin());
    },
    { prefix: QUEUE_DASHBOARD_PATH },
  );
}

/** Bull Board's own JSON API and assets answer in kind; everything else is a page. */
function isPageRequest(request: FastifyRequest): boolean {
  const path = request.url.slice(QUEUE_DASHBOARD_PATH.length).split('?')[0] ?? '';
  if (path.startsWith('/api/') || path.startsWith('/static/')) return false;
  return request.method === 'GET' || request.method === 'HEAD';
}

/** As the other admin pages: signed out goes to /login (and back), forbidden is a page. */
async function refusePage(
  viewer: DashboardViewer,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<FastifyReply> {
  reply.header('cache-control', 'no-store');
  if (viewer === 'anonymous') return reply.redirect(loginUrl(request.url), 303);
  // The refusal is drawn in the web app's layout (Bull Board's own look is for administrators).
  if (answerSwitch(request, reply)) return reply;
  const view = personalView(request);
  const { t } = view;
  return sendPersonalPage(request, reply, 403, view, {
    title: t.forbiddenTitle,
    heading: html`${t.administratorsOnly}`,
    body: html`<p>${t.queuesAdministratorsOnly}</p>
      <p><a href="/account">${t.yourAccount}</a></p>`,
  });
}

const GOOGLE_FONTS_LINK =
  /<link\b[^>]*\bhref="https:\/\/fonts\.(?:googleapis|gstatic)\.com\/[^"]*"[^>]*>/g;

/** The page without links to Google's font servers (see the onSend hook). */
export function withoutExternalFonts(page: string): string {
  return page.replace(GOOGLE_FONTS_LINK, '');
}
