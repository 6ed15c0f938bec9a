import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyError, type FastifyReply, type FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors, validatorCompiler } from '@fastify/type-provider-zod';
import type { Redis } from 'ioredis';
import type { PictureRenderer } from '../circulation-images/render-picture.js';
import type { Config } from '../config/config.js';
import type { Db } from '../db/db.js';
import type { Logger } from '../log/logger.js';
import { createQuotaStore } from '../quota/create-quota-store.js';
import { quotaCostsFromConfig } from '../quota/quota-costs.js';
import type { Clock, QuotaStore } from '../quota/quota-store.js';
import { ApiError, isDatabaseUnavailable } from './api-error.js';
import { EmuCodeCache } from './emu-code-cache.js';
import type { ErrorEnvelope } from './envelope.js';
import { CurrentCirculationProvider } from './current-circulation-provider.js';
import { registerOpenApi } from './openapi.js';
import { QuotaGate } from './quota-gate.js';
import { TimetableSummaryCache } from './timetable-summary-cache.js';
import { registerAllocationEmu } from './routes/allocation-emu.js';
import { registerCirculationImage } from './routes/circulation-image.js';
import { registerExportsDaily } from './routes/exports-daily.js';
import { registerHealth } from './routes/health.js';
import { registerHistory } from './routes/history.js';
import { registerPrediction } from './routes/prediction.js';
import { registerRecordsDaily } from './routes/records-daily.js';
import { registerTimetableStation } from './routes/timetable-station.js';
import { registerTimetableTrain } from './routes/timetable-train.js';
import { createFastSerializerCompiler } from './serializer.js';
import type { ApiApp, ApiServices, V2App } from './services.js';
import type { TrainCirculationProvider } from './train-circulation-schema.js';

export type { ApiApp } from './services.js';

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
}

const V2_PREFIX = '/api/v2/';
const REQUEST_ID = /^[\w.:-]{1,128}$/;

function isV2(request: FastifyRequest): boolean {
  const { url } = request;
  if (url.startsWith('/api/v2/openapi.json')) return false;
  return url.startsWith(V2_PREFIX) || url === '/api/v2' || url.startsWith('/api/v2?');
}

/** "date: ...; limit: ..." from a validation failure: every message names its parameter. */
function validationMessage(error: FastifyError): string {
  const parts = (error.validation ?? []).map((v) => {
    const name = v.instancePath.replace(/^\//, '').replace(/\//g, '.');
    return name && !v.message?.startsWith(name) ? `${name}: ${v.message}` : (v.message ?? '');
  });
  return parts.join('; ') || error.message;
}

/** What a failure is reported as; unexpected errors are logged here and told as `internal`. */
function toApiError(error: FastifyError, request: FastifyRequest): ApiError {
  if (error instanceof ApiError) return error;
  if (hasZodFastifySchemaValidationErrors(error) || error.validation) {
    return new ApiError('invalid_param', validationMessage(error));
  }
  if (isDatabaseUnavailable(error)) {
    request.log.warn({ err: error }, 'database unreachable');
    return new ApiError('unavailable', 'the database cannot be reached; try again shortly');
  }
  if (error.code === 'FST_ERR_BAD_URL') {
    return new ApiError('invalid_param', 'the URL is malformed (bad percent-encoding)');
  }
  if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    return new ApiError('invalid_param', 'a path parameter is longer than 100 characters');
  }
  if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) {
    // Fastify's own client errors (bad URL, body on a GET, ...): their messages are safe to show.
    return new ApiError('invalid_param', error.message);
  }
  request.log.error({ err: error }, 'request failed');
  return new ApiError('internal', `internal error (request ${request.id})`);
}

/**
 * The HTTP API: the v2 read operations, health checks, the OpenAPI document and its docs page.
 * Call `listen` or `inject` on the result; closing it leaves db and Redis to the caller.
 */
export async function buildApp(deps: AppDeps): Promise<ApiApp> {
  const { config, db } = deps;
  const clock = deps.clock ?? Date.now;
  const store =
    deps.quotaStore ??
    createQuotaStore({ config, logger: deps.logger, redis: deps.redis, clock: deps.clock });
  const gate = new QuotaGate(store, config);
  const services: ApiServices = {
    config,
    db,
    gate,
    costs: quotaCostsFromConfig(config),
    emuCodes: new EmuCodeCache(db),
    timetables: new TimetableSummaryCache(db),
    clock,
    circulations: deps.circulations ?? new CurrentCirculationProvider(db, config, clock),
  };

  /** The one place failures are answered: the envelope (with quota) under /api/v2. */
  const sendError = async (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const apiError = toApiError(error, request);
    if (!isV2(request)) {
      return reply
        .code(apiError.statusCode)
        .send({ error: { code: apiError.code, message: apiError.message } });
    }
    await gate.release(request);
    const meta = await gate.meta(request);
    gate.setHeaders(reply, meta);
    const body: ErrorEnvelope = { meta, error: { code: apiError.code, message: apiError.message } };
    return reply.code(apiError.statusCode).send(body);
  };

  const app = Fastify({
    loggerInstance: deps.logger,
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
    trustProxy: config.TRUSTED_PROXIES.length > 0 ? config.TRUSTED_PROXIES : false,
    // Malformed URLs and over-long path parameters are refused before routing: same envelope.
    frameworkErrors: (error, request, reply) => {
      reply.header('x-request-id', request.id);
      void sendError(error, request as FastifyRequest, reply as unknown as FastifyReply);
    },
  });
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(createFastSerializerCompiler());

  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  app.setErrorHandler(sendError);

  app.setNotFoundHandler(async (request, reply) => {
    const path = request.url.split('?')[0]!.slice(0, 200);
    const error = { code: 'not_found', message: `no operation ${request.method} ${path}` };
    if (!isV2(request)) return reply.code(404).send({ error });
    const meta = await gate.meta(request);
    gate.setHeaders(reply, meta);
    return reply.code(404).send({ meta, error });
  });

  await registerOpenApi(app);
  registerHealth(app, { db, redis: deps.redis });
  const v2 = app.withTypeProvider() as unknown as V2App;
  registerRecordsDaily(v2, services);
  registerExportsDaily(v2, services);
  registerTimetableTrain(v2, services);
  registerTimetableStation(v2, services);
  registerHistory(v2, services);
  registerAllocationEmu(v2, services);
  registerCirculationImage(v2, services, { renderer: deps.pictureRenderer });
  registerPrediction(v2, services);
  return app;
}
