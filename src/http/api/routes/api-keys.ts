import type { FastifyPluginAsyncZod } from '@fastify/type-provider-zod';
import { z } from 'zod';
import {
  issueCredential,
  listCredentials,
  revokeCredential,
} from '../../../domain/accounts/credentials.js';
import {
  CREDENTIALS_MANAGE_SCOPE,
  defaultKeyScopes,
  scopesOfRole,
} from '../../../domain/accounts/scopes.js';
import { accountSettingsFromConfig } from '../../../domain/accounts/account-settings.js';
import {
  apiKeyItemOf,
  apiKeySummaryOf,
  apiKeyItemSchema,
  apiKeyListSchema,
  createApiKeyBodySchema,
  createdApiKeySchema,
} from '../account-schemas.js';
import { ApiError } from '../api-error.js';
import type { RouteOptions } from '../../app-context.js';
import { callerOf, quotaOf, signedInOperations } from '../v2-edge.js';
import { ACCOUNT_BODY_LIMIT } from './auth.js';
import { authQuota } from './auth-quota.js';

/**
 * The signed-in user's API keys: list (every credential of the user, web sessions and OAuth
 * tokens included, revoked and expired ones too), create (webapp sessions only: a key cannot
 * mint keys) and revoke by revokeId.
 */
export const apiKeyRoutes: FastifyPluginAsyncZod<RouteOptions> = async (app, { services }) => {
  const { db, config } = services;
  const settings = accountSettingsFromConfig(config);
  const credentials = app.emutrackEdge.credentials;

  const signedIn = (request: Parameters<typeof callerOf>[0]) => {
    const caller = callerOf(request);
    if (caller.kind !== 'credential') throw new ApiError('invalid_api_key', 'sign in first');
    return caller;
  };

  /**
   * The caller, if it may list and revoke the user's credentials: a web session, or an API key
   * made with api.auth.credentials.manage (a key scoped to exports must not revoke the owner's
   * web session, nor list what else the owner holds).
   */
  const manager = (request: Parameters<typeof callerOf>[0]) => {
    const caller = signedIn(request);
    if (
      caller.credential.issuer !== 'webapp' &&
      !caller.credential.scopes.includes(CREDENTIALS_MANAGE_SCOPE)
    ) {
      throw new ApiError(
        'insufficient_scope',
        `this credential lacks the scope ${CREDENTIALS_MANAGE_SCOPE}, which managing credentials needs (or use a web session)`,
      );
    }
    return caller;
  };
  /** The v2 config of an operation for such a manager. */
  const managerOperation = signedInOperations({ tag: 'Auth', issuers: ['webapp', 'api'] });

  app.get(
    '/auth/api-keys',
    {
      config: managerOperation(
        'ListApiKeys',
        "The signed-in user's keys, sessions and OAuth tokens",
        `With a web session, or an API key that holds \`${CREDENTIALS_MANAGE_SCOPE}\` (asked for by name when the key is made; never given to OAuth apps): any other key is 403 insufficient_scope. \`isCurrent\` marks the credential making the request. Free of quota.`,
      ),
      schema: { response: { 200: apiKeyListSchema } },
    },
    async (request) => {
      const caller = manager(request);
      const list = await listCredentials(db, caller.user.userId, { includeInactive: true });
      return {
        items: list.map((c) => apiKeyItemOf(c, caller.credential.revokeId)),
        quota: await authQuota(quotaOf(request), config),
        creatableScopes: [...scopesOfRole(caller.user.role)],
        defaultScopes: [...defaultKeyScopes(caller.user.role)],
        maxLifetimeSeconds: settings.maxLifetimeSeconds,
      };
    },
  );

  app.post(
    '/auth/api-keys',
    {
      bodyLimit: ACCOUNT_BODY_LIMIT,
      config: {
        v2: {
          operationId: 'CreateApiKey',
          tag: 'Auth',
          summary: 'Creates an API key; the key is shown in clear this once',
          description: `JSON \`{name, scopes?, activeFrom?, expiresAt?}\` (Unix seconds), with a web session. \`scopes\` must be among what you hold (creatableScopes; default all of them): a scope beyond is 400 invalid_param naming it. expiresAt defaults to ${config.API_KEY_DEFAULT_LIFETIME_DAYS} days after activeFrom, at most ${config.API_KEY_MAX_LIFETIME_DAYS} days from now. The key's daily limit is ${config.API_KEY_DAILY_TOKEN_LIMIT} tokens per Shanghai service day; it draws on your user's bucket with your other credentials. Free of quota.`,
          auth: 'required',
          issuers: ['webapp'],
          cost: { free: true },
          errorStatuses: [413],
        },
      },
      schema: { body: createApiKeyBodySchema, response: { 200: createdApiKeySchema } },
    },
    async (request) => {
      const caller = signedIn(request);
      const { name, scopes, activeFrom, expiresAt } = request.body;
      const { secret, credential } = await issueCredential(
        db,
        {
          userId: caller.user.userId,
          issuer: 'api',
          name,
          scopes: scopes ?? defaultKeyScopes(caller.user.role),
          ...(activeFrom !== undefined ? { activeFrom: new Date(activeFrom * 1000) } : {}),
          ...(expiresAt !== undefined ? { expiresAt: new Date(expiresAt * 1000) } : {}),
          dailyTokenLimit: settings.dailyTokenLimit,
        },
        {
          defaultLifetimeSeconds: settings.defaultLifetimeSeconds,
          maxLifetimeSeconds: settings.maxLifetimeSeconds,
        },
      );
      return { apiKey: secret, name: credential.name, ...apiKeySummaryOf(credential) };
    },
  );

  app.delete(
    '/auth/api-keys/:revokeId',
    {
      config: managerOperation(
        'RevokeApiKey',
        'Revokes one of your credentials by its revokeId',
        'Any of your credentials: a key, a web session (signs that browser out) or an OAuth token. With a web session, or an API key that holds `api.auth.credentials.manage` (any other key is 403 insufficient_scope). Takes effect at once (within a second on every API process). 404 not_found when the revokeId is not one of yours. Free of quota.',
      ),
      schema: {
        params: z.object({
          revokeId: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'revokeId: not a revokeId'),
        }),
        response: { 200: apiKeyItemSchema },
      },
    },
    async (request) => {
      const caller = manager(request);
      const revoked = await revokeCredential(db, request.params.revokeId, {
        userId: caller.user.userId,
      });
      if (!revoked)
        throw new ApiError('not_found', `you have no credential ${request.params.revokeId}`);
      credentials.clear();
      return apiKeyItemOf(revoked, caller.credential.revokeId);
    },
  );
};
