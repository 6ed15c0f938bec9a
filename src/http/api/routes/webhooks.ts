import type { FastifyPluginAsyncZod } from '@fastify/type-provider-zod';
import { z } from 'zod';
import { findEmuId } from '../../../domain/emus/emu-registry.js';
import { MalformedTrainCodeError, normalizeTrainCode } from '../../../domain/trains/train-code.js';
import {
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  listWebhookEndpoints,
  MAX_WEBHOOK_FILTER,
  recentWebhookDeliveries,
  rotateWebhookSecret,
  WEBHOOK_EVENTS,
  type WebhookEndpoint,
  type WebhookOwner,
} from '../../../domain/webhooks/webhook-endpoints.js';
import { WebhookError } from '../../../domain/webhooks/webhook-error.js';
import { MAX_WEBHOOK_URL_LENGTH } from '../../../domain/webhooks/webhook-url.js';
import { ApiError } from '../api-error.js';
import type { RouteOptions } from '../../app-context.js';
import { callerOf, type V2OperationConfig } from '../v2-edge.js';
import { ACCOUNT_BODY_LIMIT } from './auth.js';

export const WEBHOOKS_SCOPE = 'api.webhooks.manage';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export const webhookEndpointSchema = z
  .object({
    id: z.string(),
    url: z.string(),
    events: z.array(z.enum(WEBHOOK_EVENTS)),
    trains: z.array(z.string()),
    emuIds: z.array(z.number().int()),
    createdAt: z.string(),
    active: z.boolean(),
    failingSince: z.string().nullable(),
    lastError: z.string().nullable(),
    lastSuccessAt: z.string().nullable(),
    disabledAt: z.string().nullable(),
    disabledReason: z
      .string()
      .nullable()
      .describe(
        'Why it was disabled (every delivery failing for a day); rotate-secret re-enables it.',
      ),
  })
  .meta({ id: 'WebhookEndpoint' });

const deliverySchema = z
  .object({
    messageId: z.string(),
    eventType: z.string(),
    createdAt: z.string(),
    attempts: z.number().int(),
    lastStatus: z.number().int().nullable(),
    lastError: z.string().nullable(),
    deliveredAt: z.string().nullable(),
    failedAt: z.string().nullable(),
  })
  .meta({ id: 'WebhookDelivery' });

const createdSchema = webhookEndpointSchema
  .extend({
    secret: z
      .string()
      .describe(
        'whsec_...: the signing secret, shown this once (verify webhook-signature with it).',
      ),
  })
  .meta({ id: 'CreatedWebhookEndpoint' });

const createBodySchema = z
  .object({
    url: z.string().max(MAX_WEBHOOK_URL_LENGTH),
    events: z.array(z.string().max(40)).min(1).max(WEBHOOK_EVENTS.length),
    trains: z.array(z.string().max(20)).max(MAX_WEBHOOK_FILTER).optional(),
    emus: z.array(z.string().max(40)).max(MAX_WEBHOOK_FILTER).optional(),
  })
  .strict();

const idParams = z.object({
  id: z.string().regex(/^whe_[A-Za-z0-9_-]{1,40}$/, 'id: not a webhook id (whe_...)'),
});

export function webhookEndpointItem(e: WebhookEndpoint) {
  return {
    id: e.id,
    url: e.url,
    events: e.events,
    trains: e.trains,
    emuIds: e.emuIds,
    createdAt: e.createdAt.toISOString(),
    active: e.disabledAt === null,
    failingSince: iso(e.failingSince),
    lastError: e.lastError,
    lastSuccessAt: iso(e.lastSuccessAt),
    disabledAt: iso(e.disabledAt),
    disabledReason: e.disabledReason,
  };
}

function throwAsApiError(err: unknown): never {
  if (!(err instanceof WebhookError)) throw err;
  if (err.code === 'webhook_not_found') throw new ApiError('not_found', err.message);
  throw new ApiError('invalid_param', err.message);
}

/**
 * Webhook endpoints of the caller: with a web session, an API key or an OAuth token holding
 * api.webhooks.manage. An OAuth app sees and manages only the endpoints it registered.
 */
export const webhookRoutes: FastifyPluginAsyncZod<RouteOptions> = async (app, { services }) => {
  const { db, config, costs } = services;
  const ownerOf = (request: Parameters<typeof callerOf>[0]): WebhookOwner => {
    const caller = callerOf(request);
    if (caller.kind !== 'credential') throw new ApiError('invalid_api_key', 'sign in first');
    return { userId: caller.user.userId, oauthClientId: caller.credential.oauthClientId };
  };
  // Charged like the other API operations: registering and polling endpoints draw on the
  // caller's bucket, so a script cannot churn them for free.
  const quota = `Quota: ${costs.webhooks.of()} per request.`;
  const operation =
    (errorStatuses: readonly number[] = []) =>
    (operationId: string, summary: string, description: string): { v2: V2OperationConfig } => ({
      v2: {
        operationId,
        summary,
        description: `${description} ${quota}`,
        tag: 'Webhooks',
        scope: WEBHOOKS_SCOPE,
        auth: 'required',
        cost: { fixed: costs.webhooks },
        errorStatuses,
      },
    });
  const webhooksOperation = operation();
  // Creating reads a JSON body: one over ACCOUNT_BODY_LIMIT is 413.
  const webhookCreation = operation([413]);

  app.post(
    '/webhooks',
    {
      bodyLimit: ACCOUNT_BODY_LIMIT,
      config: webhookCreation(
        'CreateWebhookEndpoint',
        'Registers an endpoint for events; its secret is shown this once',
        `JSON \`{url, events, trains?, emus?}\`. \`url\`: https (http only on the loopback where the server allows it), never a private address. \`events\`: any of ${WEBHOOK_EVENTS.join(', ')}; records.changed needs \`trains\` and/or \`emus\` (any written form) to follow. Deliveries are POSTs signed as the Standard Webhooks specification says (webhook-id, webhook-timestamp, webhook-signature), retried with exponential backoff up to ${config.WEBHOOK_MAX_ATTEMPTS} attempts; an endpoint failing for ${Math.round(config.WEBHOOK_DISABLE_AFTER_MS / 3_600_000)} h is disabled. At most ${config.WEBHOOK_MAX_ENDPOINTS_PER_USER} endpoints per user (OAuth apps' included): one more is 400 invalid_param. One event is delivered at most once per URL and ${config.WEBHOOK_MAX_DELIVERIES_PER_EVENT} times in all across your endpoints.`,
      ),
      schema: { body: createBodySchema, response: { 200: createdSchema } },
    },
    async (request) => {
      const owner = ownerOf(request);
      const { url, events, trains = [], emus = [] } = request.body;
      const trainCodes = trains.map((t, i) => {
        try {
          return normalizeTrainCode(t);
        } catch (err) {
          if (err instanceof MalformedTrainCodeError)
            throw new ApiError('invalid_param', `trains[${i}]: ${err.message}`);
          throw err;
        }
      });
      const emuIds: number[] = [];
      for (const [i, written] of emus.entries()) {
        const id = await findEmuId(db, written);
        if (id === undefined)
          throw new ApiError(
            'invalid_param',
            `emus[${i}]: no EMU is known as ${JSON.stringify(written)}`,
          );
        emuIds.push(id);
      }
      const { endpoint, secret } = await createWebhookEndpoint(
        db,
        owner,
        { url, events, trains: trainCodes, emuIds },
        {
          allowLoopback: config.WEBHOOK_ALLOW_LOOPBACK,
          maxEndpoints: config.WEBHOOK_MAX_ENDPOINTS_PER_USER,
        },
      ).catch(throwAsApiError);
      return { ...webhookEndpointItem(endpoint), secret };
    },
  );

  app.get(
    '/webhooks',
    {
      config: webhooksOperation(
        'ListWebhookEndpoints',
        'Your webhook endpoints, with their health',
        'Newest first. Secrets are never shown again.',
      ),
      schema: { response: { 200: z.object({ items: z.array(webhookEndpointSchema) }) } },
    },
    async (request) => ({
      items: (await listWebhookEndpoints(db, ownerOf(request))).map(webhookEndpointItem),
    }),
  );

  app.get(
    '/webhooks/:id/deliveries',
    {
      config: webhooksOperation(
        'ListWebhookDeliveries',
        'The latest deliveries to one of your endpoints',
        'The last 50, newest first: what was sent, how often, what came back.',
      ),
      schema: {
        params: idParams,
        response: { 200: z.object({ items: z.array(deliverySchema) }) },
      },
    },
    async (request) => {
      const owner = ownerOf(request);
      const endpoints = await listWebhookEndpoints(db, owner);
      if (!endpoints.some((e) => e.id === request.params.id))
        throw new ApiError('not_found', `you have no webhook ${request.params.id}`);
      const list = await recentWebhookDeliveries(db, owner, request.params.id, 50);
      return {
        items: list.map((d) => ({
          ...d,
          createdAt: d.createdAt.toISOString(),
          deliveredAt: iso(d.deliveredAt),
          failedAt: iso(d.failedAt),
        })),
      };
    },
  );

  app.delete(
    '/webhooks/:id',
    {
      config: webhooksOperation(
        'DeleteWebhookEndpoint',
        'Deletes one of your endpoints; nothing more is delivered to it',
        'Its pending deliveries go with it.',
      ),
      schema: { params: idParams, response: { 200: webhookEndpointSchema } },
    },
    async (request) => {
      return webhookEndpointItem(
        await deleteWebhookEndpoint(db, ownerOf(request), request.params.id).catch(throwAsApiError),
      );
    },
  );

  app.post(
    '/webhooks/:id/rotate-secret',
    {
      config: webhooksOperation(
        'RotateWebhookSecret',
        'A new signing secret, shown this once; the old one signs too for a while',
        `For ${Math.round(config.WEBHOOK_SECRET_OVERLAP_SECONDS / 3600)} h each delivery carries a signature by each secret, so the receiver can switch without a failure. Also re-enables a disabled endpoint.`,
      ),
      schema: { params: idParams, response: { 200: createdSchema } },
    },
    async (request) => {
      const { endpoint, secret } = await rotateWebhookSecret(
        db,
        ownerOf(request),
        request.params.id,
        config.WEBHOOK_SECRET_OVERLAP_SECONDS,
      ).catch(throwAsApiError);
      return { ...webhookEndpointItem(endpoint), secret };
    },
  );
};
