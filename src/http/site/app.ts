import { Readable } from 'node:stream';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import fastifyCookie from '@fastify/cookie';
import { FormCsrf } from '../session/form-csrf.js';
import type { Config } from '../../shared/config/config.js';
import { registerSecurityHeaders } from '../security-headers.js';
import type { Db } from '../../shared/db/db.js';
import type { Logger } from '../../shared/log/logger.js';
import { withRedactedRequestUrls } from '../../shared/log/redact-url.js';
import { RestNonces } from './auth/rest-nonce.js';
import { SiteAuthenticator } from './auth/site-authenticator.js';
import { INVALID_JSON, registerRestEdge } from './edge/rest-edge.js';
import { SiteResponseCache } from './cache/site-response-cache.js';
import { SiteContentVersionReader } from './cache/site-content-version.js';
import { ByteCache } from '../../shared/cache/byte-cache.js';
import { DataVersionReader } from '../../shared/cache/data-versions.js';
import { ScheduledPublisher } from '../../domain/content/scheduled-publishing.js';
import { registerBatchRoute } from './rest/batch-route.js';
import { registerIndexRoutes } from './rest/index-routes.js';
import { registerInputLimits, parseFormBody, parseJsonBody } from './edge/input-limits.js';
import { parsePhpQuery, PHP_INPUT_LIMITS } from './rest/php-query.js';
import { RestServer } from './rest/rest-server.js';
import { RestRouteRegistry } from './rest/route-registry.js';
import type { SiteKit, SiteModule } from './site-kit.js';
import { siteModules } from './site-modules.js';
import { SiteUrls } from './site-urls.js';
import { renderClassicTheme } from './theme/classic-theme.js';
import { SiteTheme } from './theme/site-theme.js';
import { SitePages } from './theme/page-routes.js';
import { registerThemeFonts } from './theme/theme-fonts.js';
import { PageFontSubsets } from './theme/page-font-subset.js';
import { registerSiteAssets } from './theme/site-assets.js';
import { registerFavicon } from '../favicon.js';
import { httpServerLimits } from '../../shared/app/http-server-limits.js';

export interface SiteAppDeps {
  db: Db;
  config: Config;
  logger: Logger;
  /** Milliseconds since the epoch. Default Date.now. */
  clock?: () => number;
  /**
   * The site's modules; default `siteModules` (content, then media, templates, oEmbed). Tests
   * may pass a subset or their own.
   */
  modules?: readonly SiteModule[];
  /** The public address; default config.SITE_URL, else http://localhost:SITE_PORT. */
  siteUrl?: string;
}

export type SiteApp = FastifyInstance & { site: SiteKit };

/**
 * The documentation site: WordPress's REST API at /wp-json/ and ?rest_route=, and the site's
 * HTML pages. Modules register their REST routes and pages on the SiteKit; the index and the
 * namespace indexes are added after them. Closing the app leaves the db to the caller.
 */
export async function buildSiteApp(deps: SiteAppDeps): Promise<SiteApp> {
  const { db, config, logger } = deps;
  const clock = deps.clock ?? Date.now;
  const urls = new SiteUrls(
    deps.siteUrl ?? config.SITE_URL ?? `http://localhost:${config.SITE_PORT}`,
  );
  const app = Fastify({
    // Request lines log the URL with secret query parameters redacted (log/redact-url.ts).
    loggerInstance: withRedactedRequestUrls(logger),
    routerOptions: { querystringParser: (s: string) => parsePhpQuery(s) },
    bodyLimit: 16 * 1024 * 1024,
    ...httpServerLimits(config),
    // A logger that prints nothing needs no per-request child (pino's child with redaction
    // costs more than a kept REST answer's own work).
    childLoggerFactory: (parent, bindings, options) =>
      parent.level === 'silent' ? parent : parent.child(bindings, options),
  });
  // CSP, frame refusal and nosniff for every page and answer (before any route: see the module).
  registerSecurityHeaders(app as unknown as FastifyInstance);
  await app.register(fastifyCookie);
  registerInputLimits(app as unknown as FastifyInstance, logger);
  // The sign-in form's CSRF tokens (the API's scheme and key: src/http/session/form-csrf.ts).
  app.decorate('formCsrf', await FormCsrf.load(db));
  // JSON and forms are read here; any other body (uploads) stays a stream for its route.
  app.removeAllContentTypeParsers();
  // Bodies are read within PHP's limits (see input-limits.ts): a form body past post_max_size,
  // max_input_vars or max_input_nesting_level is a 400/413 naming the limit, never a 500.
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) =>
    done(null, parseJsonBody(String(body), INVALID_JSON)),
  );
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: PHP_INPUT_LIMITS.postMaxSizeBytes },
    (_req, body, done) => parseFormBody(String(body), done),
  );
  app.addContentTypeParser('*', (_req, payload, done) => done(null, payload as Readable));

  const registry = new RestRouteRegistry();
  const server = new RestServer(registry, urls, logger);
  const auth = new SiteAuthenticator(db, await RestNonces.load(db));
  const theme = new SiteTheme(renderClassicTheme);
  const http = app as unknown as FastifyInstance;
  const publisher = new ScheduledPublisher(db, {
    clock,
    onError: (err) => logger.warn({ err }, 'scheduled publishing failed'),
  });
  const kit = {
    db,
    config,
    logger,
    clock,
    urls,
    rest: registry,
    server,
    http,
    theme,
    auth,
    // One version reader and one bounded byte cache, made here and handed to the REST edge.
    responses: new SiteResponseCache(
      new SiteContentVersionReader(db, new DataVersionReader(db)),
      new ByteCache(),
    ),
    publisher,
    pageFonts: new PageFontSubsets(),
  } as unknown as SiteKit;
  kit.pages = new SitePages(kit);

  for (const module of deps.modules ?? siteModules) await module.register(kit);
  registerBatchRoute(server);
  registerIndexRoutes(server, () => ({
    name: config.SITE_NAME,
    description: config.SITE_DESCRIPTION,
    gmtOffset: 8,
    timezoneString: 'Asia/Shanghai',
  }));
  registerThemeFonts(http, kit.pageFonts);
  registerSiteAssets(http);
  registerFavicon(http);
  registerRestEdge(
    http,
    server,
    auth,
    (request: FastifyRequest, reply: FastifyReply) => kit.pages.home(request, reply),
    { cache: kit.responses, publisher, clock },
  );
  // Scheduled publishing runs from a timer, not from reads; a request arriving after an item's
  // time (the timer late, or a test's clock moved) waits for the job first, so no answer shows
  // the item unpublished. A callback hook: nothing is awaited unless an item is due.
  http.addHook('onRequest', (_request, _reply, done) => {
    const due = publisher.catchUp();
    if (due) void due.then(() => done());
    else done();
  });
  await publisher.start();
  http.addHook('onClose', () => publisher.stop());
  // A callback hook, not an async one: no promise per response.
  http.addHook('onSend', (_request, reply, payload, done) => {
    if (!reply.hasHeader('link'))
      reply.header('link', `<${urls.restRoot}>; rel="https://api.w.org/"`);
    done(null, payload);
  });
  return Object.assign(http, { site: kit }) as SiteApp;
}
