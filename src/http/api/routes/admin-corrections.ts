import type { FastifyPluginAsyncZod } from '@fastify/type-provider-zod';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import {
  mergeEmu,
  retractObservations,
  undoCorrection,
} from '../../../domain/corrections/apply-corrections.js';
import { CorrectionError } from '../../../domain/corrections/correction-error.js';
import {
  accountActor,
  MAX_REASON,
  type Correction,
  type CorrectionActor,
} from '../../../domain/corrections/correction-types.js';
import { listCorrections } from '../../../domain/corrections/list-corrections.js';
import type { Db } from '../../../shared/db/db.js';
import { ApiError } from '../api-error.js';
import type { RouteOptions } from '../../app-context.js';
import { callerOf, signedInOperations } from '../v2-edge.js';

/** The administrators' scope of corrections (accounts' catalogue; never granted to OAuth apps). */
const CORRECTIONS_SCOPE = 'api.admin.corrections.write';

// Administrators' web sessions or API keys: an app acting for a user does not correct the record.
const adminOperation = signedInOperations(
  {
    tag: 'Corrections',
    scope: CORRECTIONS_SCOPE,
    issuers: ['webapp', 'api'],
    errorStatuses: [409],
  },
  (description) =>
    `${description} Administrators only (scope ${CORRECTIONS_SCOPE}; 403 otherwise): their web session or an API key of theirs carrying the scope, never an OAuth token.`,
);

/** The administrator making the request; anyone else is refused with 403 forbidden. */
function administrator(request: FastifyRequest): CorrectionActor {
  const caller = callerOf(request);
  if (caller.kind !== 'credential' || caller.user.role !== 'admin')
    throw new ApiError('forbidden', 'administrators only');
  return accountActor(caller.user);
}

/** A refused correction as the API's error: 404, 400 naming the field, or 409. */
function asApiError(err: unknown): never {
  if (err instanceof CorrectionError) {
    const code =
      err.kind === 'not_found'
        ? 'not_found'
        : err.kind === 'conflict'
          ? 'correction_conflict'
          : 'invalid_param';
    throw new ApiError(code, err.message);
  }
  throw err;
}

const reason = z.string().trim().min(1, 'required: say why').max(MAX_REASON);

const correctionSchema = z
  .object({
    id: z.number().int().describe('The correction id (undo takes it).'),
    kind: z.enum(['retract', 'merge-emu', 'undo', 'report-accept', 'report-refuse']),
    reason: z.string(),
    actor: z.object({
      via: z
        .enum(['cli', 'api', 'source'])
        .describe(
          'An operator at a shell, an administrator here, or a source following its upstream (name: the source).',
        ),
      name: z.string(),
      userId: z.string().optional(),
    }),
    createdAt: z.number().int().describe('Unix seconds.'),
    observationIds: z.array(z.number().int()).optional().describe('retract: the sightings.'),
    source: z.string().optional(),
    ref: z.string().optional(),
    fromEmuId: z.number().int().optional(),
    fromEmuCode: z.string().optional(),
    intoEmuId: z.number().int().optional(),
    intoEmuCode: z.string().optional(),
    reportId: z.number().int().optional().describe('report-accept/-refuse: the sighting report.'),
    undoes: z.number().int().optional().describe('undo: the correction undone.'),
    undoneBy: z.number().int().optional().describe('The undo of this correction, if any.'),
    serviceDays: z.array(z.number().int()).describe('Service days marked stale (rebuilt).'),
  })
  .meta({ id: 'Correction' });

function correctionJson(c: Correction): z.infer<typeof correctionSchema> {
  const { createdAt, actor, ...rest } = c;
  return {
    ...rest,
    actor: actor.via === 'api' ? { ...actor } : { via: actor.via, name: actor.name },
    createdAt: Math.floor(createdAt.getTime() / 1000),
  };
}

async function readCorrection(db: Db, id: number): Promise<Correction> {
  const [c] = await listCorrections(db, { before: id + 1, limit: 1 });
  return c!;
}

const createBody = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('retract'),
    observationId: z.number().int().positive().optional(),
    source: z.string().trim().min(1).max(64).optional(),
    ref: z.string().trim().min(1).max(200).optional(),
    reason,
  }),
  z.object({
    kind: z.literal('merge-emu'),
    from: z.string().trim().min(1).max(100).describe('The unit merged (any of its codes).'),
    into: z.string().trim().min(1).max(100).describe('The unit it is merged into.'),
    reason,
  }),
]);

/**
 * /api/v2/admin/corrections: the administrators' corrections of the record (src/domain/corrections):
 * retract a sighting, merge a unit into another, undo either, and the audit trail.
 */
export const adminCorrectionsRoutes: FastifyPluginAsyncZod<RouteOptions> = async (
  app,
  { services },
) => {
  const { db } = services;

  app.get(
    '/admin/corrections',
    {
      config: adminOperation(
        'ListCorrections',
        'The corrections, newest first',
        'The audit trail: who made each correction, when, what and why, and the undo of each. Page with `before` = the last id of a page.',
      ),
      schema: {
        querystring: z.object({
          limit: z.coerce.number().int().min(1).max(200).default(50),
          before: z.coerce.number().int().positive().optional(),
        }),
        response: { 200: z.object({ items: z.array(correctionSchema) }) },
      },
    },
    async (request) => {
      administrator(request);
      const list = await listCorrections(db, request.query);
      return { items: list.map(correctionJson) };
    },
  );

  app.post(
    '/admin/corrections',
    {
      config: adminOperation(
        'CreateCorrection',
        'Retract a sighting, or merge a unit into another',
        '`kind: retract` with `observationId`, or `source` and `ref`: the sighting counts nowhere from now on. `kind: merge-emu` with `from` and `into` (EMU codes): the sightings and records of `from` move to `into`, and its codes find `into`. Both need a `reason`. The days they touch are marked stale and rebuilt. 404 for what does not exist, 409 when it clashes with a correction in force.',
      ),
      schema: {
        body: createBody,
        response: { 200: z.object({ correction: correctionSchema }) },
      },
    },
    async (request) => {
      const actor = administrator(request);
      const body = request.body;
      let id: number;
      if (body.kind === 'retract') {
        const byId = body.observationId !== undefined;
        const byRef = body.source !== undefined || body.ref !== undefined;
        if (byId === byRef)
          throw new ApiError('invalid_param', 'observationId: give it, or source and ref');
        if (byRef && (body.source === undefined || body.ref === undefined))
          throw new ApiError(
            'invalid_param',
            `${body.source === undefined ? 'source' : 'ref'}: required with ${body.source === undefined ? 'ref' : 'source'}`,
          );
        const target = byId
          ? { observationId: body.observationId! }
          : { source: body.source!, ref: body.ref! };
        ({ correctionId: id } = await retractObservations(db, target, body.reason, actor).catch(
          asApiError,
        ));
      } else {
        ({ correctionId: id } = await mergeEmu(db, body.from, body.into, body.reason, actor).catch(
          asApiError,
        ));
      }
      return { correction: correctionJson(await readCorrection(db, id)) };
    },
  );

  app.post(
    '/admin/corrections/:correctionId/undo',
    {
      config: adminOperation(
        'UndoCorrection',
        'Undo a correction',
        'Restores a retraction, or takes a merge back; the undo is itself a correction, with its reason. A correction is undone once; an undo is not undone (make the correction again).',
      ),
      schema: {
        params: z.object({ correctionId: z.coerce.number().int().positive() }),
        body: z.object({ reason }),
        response: { 200: z.object({ correction: correctionSchema }) },
      },
    },
    async (request) => {
      const actor = administrator(request);
      const { correctionId } = await undoCorrection(
        db,
        request.params.correctionId,
        request.body.reason,
        actor,
        services.clock(),
      ).catch(asApiError);
      return { correction: correctionJson(await readCorrection(db, correctionId)) };
    },
  );
};
