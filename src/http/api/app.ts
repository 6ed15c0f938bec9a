import { randomUUID } from 'node:crypto';
import fastifyCookie from '@fastify/cookie';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { validatorCompiler } from '@fastify/type-provider-zod';
import type { Redis } from 'ioredis';
import type { PictureRenderer } from '../../domain/circulation-images/render-picture.js';
import type { Config } from '../../shared/config/config.js';
import type { Db } from '../../shared/db/db.js';
import type { Logger } from '../../shared/log/logger.js';
import { createQuotaStore } from '../quota/create-quota-store.js';
import { quotaCostsFromConfig } from '../quota/quota-costs.js';
import type { Clock, ImmediateQuotaStore, QuotaStore } from '../quota/quota-store.js';
import { ByteCache } from '../../shared/cache/byte-cache.js';
import { DataVersionReader } from '../../shared/cache/data-versions.js';
import { PageCache } from './page-cache.js';
import { renderGeneration } from './render-generation.js';
import { registerCors } from './cors.js';
import { accountPages } from '../account/account-pages.js';
import { AccountPanels } from '../account/account-panels.js';
import { CredentialCache } from './caller.js';
import { EmuCodeCache } from '../../domain/emus/emu-code-cache.js';
import { EmuAliasCache } from '../../domain/emus/emu-alias-cache.js';
import { KeptHistories } from '../../domain/history/kept-histories.js';
import { historyItemJson } from './history-json.js';
import { CurrentCirculationProvider } from '../../domain/circulation/current-circulation-provider.js';
import { registerOpenApi } from './openapi.js';
import { registerSecurityHeaders } from '../security-headers.js';
import { registerFavicon } from '../favicon.js';
import { scheduleAttemptLimitCleanup } from './attempt-limits-cleanup.js';
import { FormCsrf } from '../session/form-csrf.js';
import { withRedactedRequestUrls } from '../../shared/log/redact-url.js';
import { lazyRequestLoggerFactory } from './request-logger.js';
import { TimetableSummaryCache } from '../../domain/timetables/timetable-summary-cache.js';
import { SearchService } from '../../domain/search/search-service.js';
import { StationBoardCache } from '../../domain/timetables/station-board-cache.js';
import { EmuModelCache } from '../../domain/emus/emu-model-cache.js';
import { TimetablesInForceCache } from '../../domain/timetables/timetables-in-force-cache.js';
import { ReferenceModelCache } from '../../domain/records/reference-model-cache.js';
import { DailyRecordDays } from '../../domain/records/daily-record-days.js';
import { recordItemsOf } from './daily-records-json.js';
import { adminCorrectionsRoutes } from './routes/admin-corrections.js';
import { reportsRoutes } from './routes/reports.js';
import { registerReportPages } from '../web/participation/report-pages.js';
import { registerReportQueuePages } from '../web/participation/report-queue-pages.js';
import { registerFeedbackPages } from '../web/participation/feedback-pages.js';
import { registerCorrectionsPage } from '../web/participation/corrections-page.js';
import { allocationEmuRoutes } from './routes/allocation-emu.js';
import { apiKeyRoutes } from './routes/api-keys.js';
import { authRoutes } from './routes/auth.js';
import { circulationImageRoutes } from './routes/circulation-image.js';
import { exportsDailyRoutes } from './routes/exports-daily.js';
import { registerHealth } from './routes/health.js';
import { historyRoutes } from './routes/history.js';
import { predictionRoutes } from './routes/prediction.js';
import { recordChangesRoutes } from './routes/records-changes.js';
import { recordsDailyRoutes } from './routes/records-daily.js';
import { webhookRoutes } from './routes/webhooks.js';
import { favouriteRoutes } from './routes/favourites.js';
import { alertSubscriptionRoutes } from './routes/alert-subscriptions.js';
import { registerAlertLinkPages } from '../web/alert-link-pages.js';
import { registerAlertSubscribePage } from '../web/alert-subscribe-page.js';
import {
  registerWebhookAccountForms,
  webhooksAccountPanel,
} from '../account/webhooks-account-panel.js';
import { searchRoutes } from './routes/search.js';
import { timetableStationRoutes } from './routes/timetable-station.js';
import { timetableTrainRoutes } from './routes/timetable-train.js';
import { createFastSerializerCompiler } from './serializer.js';
import type { ApiApp, ApiServices } from '../app-context.js';
import {
  answerError,
  answerFrameworkError,
  notFoundError,
  V2Edge,
  v2Api,
  type V2ApiOptions,
} from './v2-edge.js';
import type { TrainCirculationProvider } from '../../domain/circulation/current-circulation-provider.js';
import { registerOperations, type OperationsDeps } from '../ops/register-operations.js';
import { oauthOperations, registerOAuth } from '../oauth/register-oauth.js';
import { httpServerLimits } from '../../shared/app/http-server-limits.js';
import { registerWebApp, wantsWebPage, type WebAnswers } from '../web/web-app.js';

export type { ApiApp } from '../app-context.js';

export interface AppDeps {
  db: Db;
  config: Config;
  logger: Logger;
  /**
   * Redis for the quota buckets (see createQuotaRedis); absent = in-process buckets. The caller
   * owns it (and the db): closing the app closes neither.
   */
  redis?: Redis;
  /** A ready-made quota store; overrides `redis` for the buckets (readyz still checks `redis`). */
  quotaStore?: QuotaStore;
  /** Milliseconds since the epoch. Default Date.now; tests inject time. */
  clock?: Clock;
  /**
   * The circulations of GetCurrentTrainTimetable and GetTrainCirculationImage; absent = the
   * database's (CurrentCirculationProvider).
   */
  circulations?: TrainCirculationProvider;
  /** Draws circulation pictures; absent = PNG via resvg, PDF via pdfkit. */
  pictureRenderer?: PictureRenderer;
  /** Metrics and queue dashboard wiring (see registerOperations); absent = their defaults. */
  operations?: Pick<OperationsDeps, 'queues' | 'viewerOf'>;
}

const REQUEST_ID = /^[\w.:-]{1,128}$/;

/**
 * The HTTP API: the v2 read operations, health checks, the OpenAPI document and its docs page.
 * Call `listen` or `inject` on the result; closing it leaves db and Redis to the caller.
 */
export async function buildApp(deps: AppDeps): Promise<ApiApp> {
  const { config, db } = deps;
  const clock = deps.clock ?? Date.now;
  const store: QuotaStore & Partial<Pick<ImmediateQuotaStore, 'close'>> =
    deps.quotaStore ??
    createQuotaStore({ config, logger: deps.logger, redis: deps.redis, clock: deps.clock });
  const emuCodes = new EmuCodeCache(db);
  const timetables = new TimetableSummaryCache(db);
  const services: ApiServices = {
    config,
    db,
    costs: quotaCostsFromConfig(config),
    emuCodes,
    timetables,
    // One of each for the API's routes and the web app's pages, so both read the same kept data.
    stationBoards: new StationBoardCache(db),
    referenceModels: new ReferenceModelCache(db),
    emuModels: new EmuModelCache(db),
    timetablesInForce: new TimetablesInForceCache(db),
    dailyRecords: new DailyRecordDays(db, recordItemsOf({ emuCodes, timetables })),
    emuAliases: new EmuAliasCache(db),
    search: new SearchService(db, { checkEveryMs: config.SEARCH_CHECK_EVERY_MS }),
    clock,
    // One version reader and one bounded byte cache for every cached route of this app; the
    // pages' ETags name the code that wrote them too (a deploy that changes it changes them).
    pages: new PageCache(new DataVersionReader(db), new ByteCache(), renderGeneration()),
    histories: new KeptHistories(db, historyItemJson),
    circulations: deps.circulations ?? new CurrentCirculationProvider(db, config, clock),
  };

  // Who calls and what it may do (v2-edge.ts): its state is this app's, made here.
  const edge = new V2Edge({
    config,
    store,
    clock,
    credentials: new CredentialCache(db, { ttlMs: config.CREDENTIAL_CACHE_MS, clock }),
  });
  // Set once the web app is registered (after the factory's Fastify(), which frameworkErrors
  // belongs to): until then no request is served.
  const late: { web?: WebAnswers } = {};
  const app = Fastify({
    // Request lines log the URL with secret query parameters redacted (log/redact-url.ts).
    loggerInstance: withRedactedRequestUrls(deps.logger),
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
    trustProxy: config.TRUSTED_PROXIES.length > 0 ? config.TRUSTED_PROXIES : false,
    ...httpServerLimits(config),
    childLoggerFactory: lazyRequestLoggerFactory,
    // Malformed URLs and over-long path parameters are refused before routing: same envelope;
    // a browser outside /api gets the web app's 400 page naming the path.
    frameworkErrors: (error, request, reply) => {
      reply.header('x-request-id', request.id);
      const req = request as FastifyRequest;
      const res = reply as FastifyReply;
      if (late.web && wantsWebPage(req) && late.web.refusedAddress(error, req, res)) return;
      void answerFrameworkError(error, req, res);
    },
  });
  // CSP, frame refusal and nosniff for every page and answer (before any route: see the module).
  registerSecurityHeaders(app as unknown as FastifyInstance);
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(createFastSerializerCompiler());
  // First: every answer carries it.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    done();
  });
  await app.register(fastifyCookie);
  registerFavicon(app as unknown as FastifyInstance);
  // The forms' CSRF tokens (key shared by every process through the database): web-session.ts.
  // Loaded on the first request, not here: the app starts (and /healthz answers) without Postgres.
  const formCsrf = FormCsrf.lazy(db);
  app.decorate('formCsrf', formCsrf);
  // Attempt-limit keys quiet for a day are forgotten anyway: delete them hourly.
  scheduleAttemptLimitCleanup(app, db, deps.logger);
  app.addHook('onRequest', (_request, _reply, done) => {
    if (formCsrf.loaded) return done();
    formCsrf.ready().then(
      () => done(),
      () => done(),
    );
  });
  // Before the edge: preflights are answered, and CORS headers set, ahead of authentication.
  await registerCors(app);
  // The account page's Development tab: other parts add panels (OAuth clients) when registered.
  app.decorate('accountPanels', new AccountPanels());
  // The app's edge, for what runs outside the /api/v2 scope: framework errors, OAuth's
  // credentialsChanged, tests.
  app.decorate('emutrackEdge', edge);
  app.decorate('emutrackV2Routes', edge.routes);
  // Leases go back to the shared buckets.
  app.addHook('onClose', async () => {
    await store.close?.();
  });
  app.setErrorHandler(answerError);

  // The web app at / (src/http/web): pages for people on the same readers as /api/v2.
  const web = await registerWebApp(app, services);
  late.web = web;
  // Outside /api/v2 (whose scope answers its own unknown paths in the envelope): a browser gets
  // the web app's 404 page, a program the error object.
  app.setNotFoundHandler(async (request, reply) =>
    wantsWebPage(request)
      ? web.notFound(request, reply)
      : reply.code(404).send({ error: notFoundError(request) }),
  );

  await registerOperations(app, { db, config, logger: deps.logger, ...deps.operations });
  await registerOpenApi(app);
  registerHealth(app, { db, redis: deps.redis });
  const routes = { services };
  app.accountPanels.add(webhooksAccountPanel(db));
  await registerWebhookAccountForms(app, db, config);
  await registerAlertLinkPages(app as unknown as FastifyInstance, db);
  await registerAlertSubscribePage(app as unknown as FastifyInstance, db, config);
  await app.register(accountPages, routes);
  await registerReportPages(app, { db, clock: services.clock });
  await registerReportQueuePages(app, { db, clock: services.clock });
  await registerFeedbackPages(app, { db, clock: services.clock });
  await registerCorrectionsPage(app, { db, clock: services.clock });
  const oauth = await registerOAuth(app, {
    db,
    config,
    logger: deps.logger,
    clock: deps.clock,
    redis: deps.redis,
  });
  // The v2 operations, in their own scope under /api/v2 with the edge (v2-edge.ts).
  const operations: V2ApiOptions['operations'] = async (v2) => {
    await v2.register(recordsDailyRoutes, routes);
    await v2.register(recordChangesRoutes, routes);
    await v2.register(exportsDailyRoutes, routes);
    await v2.register(timetableTrainRoutes, routes);
    await v2.register(timetableStationRoutes, routes);
    await v2.register(historyRoutes, routes);
    await v2.register(allocationEmuRoutes, routes);
    await v2.register(circulationImageRoutes, { services, renderer: deps.pictureRenderer });
    await v2.register(predictionRoutes, routes);
    await v2.register(searchRoutes, routes);
    await v2.register(authRoutes, routes);
    await v2.register(apiKeyRoutes, routes);
    await v2.register(adminCorrectionsRoutes, routes);
    await v2.register(reportsRoutes, routes);
    await v2.register(webhookRoutes, routes);
    await v2.register(favouriteRoutes, routes);
    await v2.register(alertSubscriptionRoutes, routes);
    await oauthOperations(v2, oauth);
  };
  await app.register(v2Api, { prefix: '/api/v2', edge, operations });
  return app;
}
