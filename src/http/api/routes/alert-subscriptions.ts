import type { FastifyPluginAsyncZod } from '@fastify/type-provider-zod';
import { z } from 'zod';
import { AlertError } from '../../../domain/alerts/alert-error.js';
import { ALERT_CHANNELS, ALERT_EVENTS, ALERT_KINDS } from '../../../domain/alerts/alert-events.js';
import {
  deleteSubscription,
  listSubscriptions,
  type AlertSubscription,
} from '../../../domain/alerts/subscriptions.js';
import { AlertMailUnavailableError, AlertSubscribing } from '../../alert-subscribing.js';
import { vapidPublicKey } from '../../../domain/alerts/vapid-keys.js';
import { resolveKeySecret } from '../../../domain/oauth/key-secret.js';
import { ApiError } from '../api-error.js';
import type { RouteOptions } from '../../app-context.js';
import { callerOf, type V2OperationConfig } from '../v2-edge.js';
import { ACCOUNT_BODY_LIMIT } from './auth.js';

export const SUBSCRIPTIONS_SCOPE = 'api.auth.subscriptions';

const ALL_EVENTS = Object.values(ALERT_EVENTS).flat();

const subscriptionSchema = z
  .object({
    id: z.string(),
    kind: z.enum(ALERT_KINDS),
    code: z.string(),
    channel: z.enum(ALERT_CHANNELS),
    target: z
      .string()
      .describe(
        'The e-mail address, the push service (origin of the endpoint), or the webhook id.',
      ),
    events: z.array(z.enum(ALL_EVENTS)),
    digest: z.boolean(),
    status: z.enum(['unverified', 'active', 'dropped']),
    droppedReason: z.string().nullable(),
    createdAt: z.string(),
  })
  .meta({ id: 'AlertSubscription' });

const pushSchema = z
  .object({
    endpoint: z.string().max(2_000),
    expirationTime: z.number().nullable().optional(),
    keys: z.object({ p256dh: z.string().max(200), auth: z.string().max(200) }),
  })
  .describe("The browser's PushSubscription.toJSON().");

const putBodySchema = z
  .object({
    kind: z.enum(ALERT_KINDS),
    code: z.string().max(40),
    channel: z.enum(ALERT_CHANNELS),
    address: z.string().max(254).optional(),
    subscription: pushSchema.optional(),
    webhook: z
      .string()
      .max(60)
      .optional()
      .describe('channel webhook: one of your endpoints (whe_...).'),
    events: z.array(z.string().max(40)).max(10).optional(),
    digest: z.boolean().optional(),
  })
  .strict();

const idParams = z.object({
  id: z.string().regex(/^als_[A-Za-z0-9_-]{1,40}$/, 'id: not a subscription id (als_...)'),
});

function item(s: AlertSubscription) {
  return { ...s, createdAt: s.createdAt.toISOString() };
}

function throwAsApiError(err: unknown): never {
  if (err instanceof AlertMailUnavailableError) throw new ApiError('unavailable', err.message);
  if (!(err instanceof AlertError)) throw err;
  if (err.code === 'alert_not_found') throw new ApiError('not_found', err.message);
  throw new ApiError('invalid_param', err.message);
}

/**
 * The caller's alert subscriptions (docs/taking-part.md, Alerts): with a web session, an API key
 * or an OAuth token holding api.auth.subscriptions. An e-mail subscription is answered
 * `unverified` and its verification mail sent before the answer; nothing else goes to the
 * address until its link is followed.
 */
export const alertSubscriptionRoutes: FastifyPluginAsyncZod<RouteOptions> = async (
  app,
  { services },
) => {
  const { db, config, costs } = services;
  const subscribing = new AlertSubscribing(db, config);
  app.addHook('onClose', async () => subscribing.close());
  const userOf = (request: Parameters<typeof callerOf>[0]): string => {
    const caller = callerOf(request);
    if (caller.kind !== 'credential') throw new ApiError('invalid_api_key', 'sign in first');
    return caller.user.userId;
  };
  const quota = `Quota: ${costs.subscriptions.of()} per request.`;
  const operation =
    (errorStatuses: readonly number[] = []) =>
    (operationId: string, summary: string, description: string): { v2: V2OperationConfig } => ({
      v2: {
        operationId,
        summary,
        description: `${description} ${quota}`,
        tag: 'Alerts',
        scope: SUBSCRIPTIONS_SCOPE,
        auth: 'required',
        cost: { fixed: costs.subscriptions },
        errorStatuses,
      },
    });

  app.get(
    '/auth/subscriptions',
    {
      config: operation()('ListAlertSubscriptions', 'Your alert subscriptions', 'Newest first.'),
      schema: { response: { 200: z.object({ items: z.array(subscriptionSchema) }) } },
    },
    async (request) => ({ items: (await listSubscriptions(db, userOf(request))).map(item) }),
  );

  app.get(
    '/auth/subscriptions/vapid-key',
    {
      config: operation()(
        'GetAlertVapidKey',
        "The server's VAPID public key, to subscribe a browser to Web Push",
        'Pass it as `applicationServerKey` to PushManager.subscribe, then PUT the subscription.',
      ),
      schema: { response: { 200: z.object({ publicKey: z.string() }) } },
    },
    async (request) => {
      userOf(request);
      const publicKey = await vapidPublicKey(db, async () => {
        const k = await resolveKeySecret({
          configured: config.OAUTH_KEY_SECRET,
          dataDir: config.DATA_DIR,
          warn: (m) => request.log.warn(m),
        });
        return k.secret;
      });
      return { publicKey };
    },
  );

  app.put(
    '/auth/subscriptions',
    {
      bodyLimit: ACCOUNT_BODY_LIMIT,
      config: operation([413, 503])(
        'PutAlertSubscription',
        'Subscribes you to alerts about a train, a unit or a station',
        `JSON \`{kind, code, channel, address?, subscription?, webhook?, events?, digest?}\`. \`kind\`: train, emu or station; \`code\`: its code (a station: its name). \`channel\` email (\`address\`; answered unverified, a verification link is mailed first), webpush (\`subscription\`: the PushSubscription JSON, endpoint https and public) or webhook (\`webhook\`: one of your endpoint ids). \`events\` default to all of the kind's: train ${ALERT_EVENTS.train.join(', ')}; emu ${ALERT_EVENTS.emu.join(', ')}; station ${ALERT_EVENTS.station.join(', ')}. \`digest\` (e-mail): one mail a day. At most ${config.ALERT_MAX_SUBSCRIPTIONS_PER_USER} subscriptions per user: one more is 400 invalid_param.`,
      ),
      schema: {
        body: putBodySchema,
        response: { 200: z.object({ id: z.string(), status: z.enum(['unverified', 'active']) }) },
      },
    },
    async (request) => {
      const userId = userOf(request);
      if (request.body.channel === 'email' && !config.SMTP_URL)
        throw new ApiError('unavailable', 'channel: e-mail alerts are not set up on this server');
      const subscription = await subscribing
        .subscribe(userId, request.body, request.log)
        .catch(throwAsApiError);
      return {
        id: subscription.id,
        status: subscription.status === 'active' ? ('active' as const) : ('unverified' as const),
      };
    },
  );

  app.delete(
    '/auth/subscriptions/:id',
    {
      config: operation()(
        'DeleteAlertSubscription',
        'Deletes one of your subscriptions; nothing more is sent for it',
        "Another user's id is 404, as an unknown one.",
      ),
      schema: {
        params: idParams,
        response: { 200: z.object({ id: z.string(), deleted: z.boolean() }) },
      },
    },
    async (request) => {
      await deleteSubscription(db, userOf(request), request.params.id).catch(throwAsApiError);
      return { id: request.params.id, deleted: true };
    },
  );
};
