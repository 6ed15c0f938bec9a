import type { FastifyPluginAsyncZod } from '@fastify/type-provider-zod';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { isModerator, MODERATION_SCOPE } from '../../../domain/accounts/scopes.js';
import { CorrectionError } from '../../../domain/corrections/correction-error.js';
import {
  accountActor,
  MAX_REASON,
  type CorrectionActor,
} from '../../../domain/corrections/correction-types.js';
import { createReport } from '../../../domain/reports/create-report.js';
import { listReports } from '../../../domain/reports/list-reports.js';
import { decideReport } from '../../../domain/reports/report-decisions.js';
import {
  attachReportPhoto,
  checkReportPhoto,
  MAX_PHOTO_BYTES,
} from '../../../domain/reports/report-photo.js';
import { ReportError } from '../../../domain/reports/report-error.js';
import type { SightingReport } from '../../../domain/reports/report-types.js';
import { addressLimitKey } from '../../../shared/net/address-limit-key.js';
import { ApiError } from '../api-error.js';
import type { RouteOptions } from '../../app-context.js';
import { callerOf, signedInOperations } from '../v2-edge.js';

/** The scope of filing a sighting report. */
export const REPORTS_SCOPE = 'api.reports.write';

const reportOperation = signedInOperations({
  tag: 'Reports',
  scope: REPORTS_SCOPE,
  issuers: ['webapp', 'api', 'oauth'],
  errorStatuses: [429],
});

const moderatorOperation = signedInOperations(
  { tag: 'Reports', scope: MODERATION_SCOPE, issuers: ['webapp', 'api'], errorStatuses: [409] },
  (d) => `${d} Moderators and administrators only (scope ${MODERATION_SCOPE}; 403 otherwise).`,
);

/** A refused report as the API's error: 400 naming the field and why, or 429 over a limit. */
export function reportApiError(err: unknown): never {
  if (err instanceof ReportError)
    throw new ApiError(
      err.kind === 'limit'
        ? 'rate_limited'
        : err.kind === 'not_found'
          ? 'not_found'
          : 'invalid_param',
      err.message,
      err.kind === 'limit' ? 3600 : undefined,
    );
  if (err instanceof CorrectionError)
    throw new ApiError(
      err.kind === 'not_found'
        ? 'not_found'
        : err.kind === 'conflict'
          ? 'correction_conflict'
          : 'invalid_param',
      err.message,
    );
  throw err;
}

function moderator(request: FastifyRequest): CorrectionActor {
  const caller = callerOf(request);
  if (caller.kind !== 'credential' || !isModerator(caller.user.role))
    throw new ApiError('forbidden', 'moderators only');
  return accountActor(caller.user);
}

const statusEnum = z.enum(['pending', 'accepted', 'refused']);

const reportSchema = z
  .object({
    id: z.number().int(),
    trainCode: z.string(),
    emuCode: z.string(),
    date: z.string().describe('YYYYMMDD, the Shanghai service day.'),
    observedAt: z.number().int().nullable().describe('Unix seconds, when the reporter said.'),
    status: statusEnum,
    reason: z.string().nullable(),
    needsModerator: z.boolean(),
    corroboratedBy: z.enum(['sighting', 'report', 'moderator']).nullable(),
    reporter: z.object({
      userId: z.string(),
      username: z.string(),
      corroborated: z.number().int(),
      refused: z.number().int(),
    }),
    hasPhoto: z.boolean(),
    qrText: z.string().nullable(),
    createdAt: z.number().int().describe('Unix seconds.'),
  })
  .meta({ id: 'SightingReport' });

function reportJson(r: SightingReport): z.infer<typeof reportSchema> {
  const { photoRef, createdAt, serviceDay: _day, ...rest } = r;
  return {
    ...rest,
    hasPhoto: photoRef !== null,
    createdAt: Math.floor(createdAt.getTime() / 1000),
  };
}

const answerSchema = z.object({
  id: z.number().int(),
  status: statusEnum,
  reason: z.string().optional(),
});

/** /api/v2/reports and the moderators' /api/v2/admin/reports (src/domain/reports). */
export const reportsRoutes: FastifyPluginAsyncZod<RouteOptions> = async (app, { services }) => {
  const { db } = services;

  app.post(
    '/reports',
    {
      config: reportOperation(
        'CreateReport',
        'Report a sighting',
        'Reports that a unit ran a train on a service day (at most 3 days back). The report counts only once corroborated: by another source, by an independent reporter, or by a moderator.',
      ),
      schema: {
        body: z.object({
          trainCode: z.string().max(64),
          emuCode: z.string().max(64),
          date: z.string().max(16),
          observedAt: z.union([z.string().max(40), z.number()]).optional(),
        }),
        response: { 200: answerSchema },
      },
    },
    async (request) => {
      const caller = callerOf(request);
      if (caller.kind !== 'credential') throw new ApiError('forbidden', 'sign in to report');
      const r = await createReport(
        db,
        { userId: caller.user.userId, address: addressLimitKey(request.ip) },
        request.body,
        { nowMs: services.clock() },
      ).catch(reportApiError);
      return { id: r.id, status: r.status, ...(r.reason ? { reason: r.reason } : {}) };
    },
  );

  // A photo comes as the raw image; the body limit refuses a larger one from its Content-Length
  // (413) before it is read, and a body without one as soon as it passes the limit.
  app.addContentTypeParser(
    ['image/jpeg', 'image/png', 'image/webp', 'application/octet-stream'],
    { parseAs: 'buffer', bodyLimit: MAX_PHOTO_BYTES },
    (_request, body, done) => done(null, body),
  );

  app.put(
    '/reports/:reportId/photo',
    {
      bodyLimit: MAX_PHOTO_BYTES,
      config: reportOperation(
        'PutReportPhoto',
        "Attach a photo to one's report",
        'The raw image (JPEG, PNG or WebP, at most 5 MB): checked by its content, re-encoded without EXIF (no location is kept), its QR code read. One photo a report.',
      ),
      schema: {
        params: z.object({ reportId: z.coerce.number().int().positive() }),
        response: { 200: z.object({ id: z.number().int(), qrText: z.string().nullable() }) },
      },
    },
    async (request) => {
      const caller = callerOf(request);
      if (caller.kind !== 'credential') throw new ApiError('forbidden', 'sign in to report');
      if (!Buffer.isBuffer(request.body))
        throw new ApiError(
          'invalid_param',
          'photo: send the image as the body (image/jpeg, image/png or image/webp)',
        );
      const photo = await checkReportPhoto(request.body).catch(reportApiError);
      await attachReportPhoto(db, request.params.reportId, caller.user.userId, photo).catch(
        reportApiError,
      );
      return { id: request.params.reportId, qrText: photo.qrText };
    },
  );

  app.get(
    '/admin/reports',
    {
      config: moderatorOperation(
        'ListReports',
        'The reports',
        'The moderators\u2019 queue: reports by status, oldest first.',
      ),
      schema: {
        querystring: z.object({
          status: statusEnum.optional(),
          limit: z.coerce.number().int().min(1).max(200).default(100),
          after: z.coerce.number().int().min(0).default(0),
        }),
        response: { 200: z.object({ items: z.array(reportSchema) }) },
      },
    },
    async (request) => {
      moderator(request);
      const items = await listReports(db, request.query);
      return { items: items.map(reportJson) };
    },
  );

  for (const decision of ['accept', 'refuse'] as const) {
    app.post(
      `/admin/reports/:reportId/${decision}`,
      {
        config: moderatorOperation(
          decision === 'accept' ? 'AcceptReport' : 'RefuseReport',
          decision === 'accept' ? 'Accept a report' : 'Refuse a report',
          'The decision is a correction in the audit trail (/admin/corrections), undone there.',
        ),
        schema: {
          params: z.object({ reportId: z.coerce.number().int().positive() }),
          body: z.object({ reason: z.string().trim().min(1, 'required: say why').max(MAX_REASON) }),
          response: {
            200: z.object({
              correctionId: z.number().int(),
              report: answerSchema,
              serviceDays: z.array(z.number().int()),
            }),
          },
        },
      },
      async (request) => {
        const actor = moderator(request);
        const d = await decideReport(
          db,
          request.params.reportId,
          decision,
          request.body.reason,
          actor,
          services.clock(),
        ).catch(reportApiError);
        return {
          correctionId: d.correctionId,
          report: { id: d.reportId, status: d.status },
          serviceDays: d.serviceDays,
        };
      },
    );
  }
};
