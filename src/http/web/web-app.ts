import fastifyCompress from '@fastify/compress';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { constants as zlib } from 'node:zlib';
import type { ApiApp, ApiServices } from '../app-context.js';
import { preferredEncoding, WEB_ASSET_PREFIX, WebAssets } from './assets/web-assets.js';
import { registerInstallRoutes } from './app-manifest.js';
import { PageLimit } from './page-limit.js';
import { sendPage } from './send-page.js';
import { BROTLI_QUALITY } from '../api/page-cache.js';
import { setPageSecurityHeaders } from '../security-headers.js';
import {
  badRequestPage,
  errorPage,
  notFoundPage,
  PageInputError,
  PageNotFoundError,
  tooManyPage,
} from './web-errors.js';
import { answerSwitch, webViewOf } from './web-request.js';
import { homePage } from './pages/home-page.js';
import { searchPage } from './pages/search-page.js';
import { trainPage } from './pages/train-page.js';
import { stationPage } from './pages/station-page.js';
import { daysPage } from './pages/days-page.js';
import { dayPage } from './pages/day-page.js';
import { unitPage } from './pages/unit-page.js';
import { fleetPage } from './pages/fleet-page.js';
import { favouritePages } from './favourites/favourite-pages.js';
import { siteUrlFor } from '../peer-url.js';
import type { PageFrame } from './personal-page.js';
import type { WebRoutes } from './web-routes.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A page of the web app: counted by the page limit, answered with HTML errors. */
    webPage?: boolean;
  }
}

/** The page routes of the web app, each a function of the scope and what pages share. */
const PAGES: readonly ((routes: WebRoutes) => void)[] = [
  homePage,
  searchPage,
  trainPage,
  stationPage,
  daysPage,
  dayPage,
  unitPage,
  fleetPage,
  favouritePages,
];

/** Whether an unknown path should be answered with the web app's 404 page (not JSON). */
export function wantsWebPage(request: FastifyRequest): boolean {
  if (request.url.startsWith('/api/') || request.url === '/api') return false;
  const accept = request.headers.accept ?? '';
  return accept.includes('text/html');
}

/** Fastify's default maxParamLength, which the app keeps: a longer path segment is refused. */
const MAX_PARAM_LENGTH = 100;

/** The answers the app's own handlers give a browser outside the web scope's routes. */
export interface WebAnswers {
  notFound(request: FastifyRequest, reply: FastifyReply): FastifyReply;
  /**
   * The 400 page for an address Fastify refused before any route (a path segment over its
   * maxParamLength, a bad percent-encoding); undefined for any other error.
   */
  refusedAddress(
    error: unknown,
    request: FastifyRequest,
    reply: FastifyReply,
  ): FastifyReply | undefined;
}

/**
 * The web app at `/`: pages for people, served by the API process on the API's own readers,
 * versions and caches (never HTTP to itself), complete without JavaScript. Registered once by
 * the app factory; returns the answer the app's not-found handler gives a browser.
 */
export async function registerWebApp(app: ApiApp, services: ApiServices): Promise<WebAnswers> {
  const assets = await WebAssets.build();
  // The account, consent and operators' pages, registered outside the web scope, share the
  // layout: they draw with these assets (personal-page.ts).
  const frame: PageFrame = { assets, docsSite: (request) => siteUrlFor(request, services.config) };
  app.decorate('pageFrame', frame);
  const limit = new PageLimit({
    burst: services.config.WEB_PAGE_BURST,
    perMinute: services.config.WEB_PAGES_PER_MINUTE,
    clock: services.clock,
  });

  // The hashed assets: the same bytes for the life of their URL, compressed once at start.
  app.get(`${WEB_ASSET_PREFIX}*`, async (request, reply) => {
    const asset = assets.atUrl(request.url.split('?', 1)[0]!);
    if (!asset) return reply.code(404).header('cache-control', 'no-store').send();
    const encoding = preferredEncoding(request.headers['accept-encoding']);
    const encoded = encoding === 'br' ? asset.brotli : encoding === 'gzip' ? asset.gzip : undefined;
    void reply
      .header('content-type', asset.contentType)
      .header('cache-control', 'public, max-age=31536000, immutable')
      .header('vary', 'Accept-Encoding');
    if (encoding && encoded) void reply.header('content-encoding', encoding);
    return reply.send(encoded ?? asset.body);
  });
  // The manifest and the service worker: installing, and pages already read opening offline.
  registerInstallRoutes(app, assets);

  await app.register(async (web) => {
    // Pages are compressed as sent, unless kept compressed already (send-page.ts); the assets
    // above come compressed already.
    await web.register(fastifyCompress, {
      global: true,
      encodings: ['br', 'gzip'],
      threshold: 1024,
      brotliOptions: { params: { [zlib.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY } },
    });
    web.addHook('onRoute', (route) => {
      route.config = { ...route.config, webPage: true };
    });
    web.addHook('onRequest', async (request, reply) => {
      const verdict = limit.take(request.ip);
      if (verdict.allowed) return;
      void reply.header('retry-after', String(verdict.retryAfterSeconds));
      return sendPage(request, reply, {
        status: 429,
        body: tooManyPage(webViewOf(request), assets, verdict.retryAfterSeconds),
      });
    });
    web.addHook('preHandler', async (request, reply) => {
      if (answerSwitch(request, reply)) return reply;
    });
    web.setErrorHandler(async (error, request, reply) => {
      const view = webViewOf(request);
      if (error instanceof PageInputError) {
        return sendPage(request, reply, { status: 400, body: badRequestPage(view, assets, error) });
      }
      if (error instanceof PageNotFoundError) {
        return sendPage(request, reply, {
          status: 404,
          body: notFoundPage(view, assets, error.suggestions),
        });
      }
      const validation = (error as { validation?: unknown; statusCode?: number }).statusCode;
      if (validation !== undefined && validation >= 400 && validation < 500) {
        const field = new PageInputError('query', (error as Error).message);
        return sendPage(request, reply, { status: 400, body: badRequestPage(view, assets, field) });
      }
      request.log.error({ err: error }, 'web page failed');
      return sendPage(request, reply, { status: 500, body: errorPage(view, assets) });
    });
    const routes: WebRoutes = { web, services, assets, view: webViewOf };
    for (const register of PAGES) register(routes);
  });

  return {
    notFound(request, reply) {
      return sendPage(request, reply, {
        status: 404,
        body: notFoundPage(webViewOf(request), assets),
      });
    },
    refusedAddress(error, request, reply) {
      const code = (error as { code?: unknown }).code;
      const view = webViewOf(request);
      const why =
        code === 'FST_ERR_MAX_PARAM_LENGTH'
          ? view.t.pathTooLong(MAX_PARAM_LENGTH)
          : code === 'FST_ERR_BAD_URL'
            ? view.t.badPercentEncoding
            : undefined;
      if (why === undefined) return undefined;
      const field = new PageInputError('path', why);
      // Refused before routing: no hook of the app runs for this answer.
      setPageSecurityHeaders(reply);
      return sendPage(request, reply, { status: 400, body: badRequestPage(view, assets, field) });
    },
  };
}
