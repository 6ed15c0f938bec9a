import type { FastifyPluginAsyncZod } from '@fastify/type-provider-zod';
import { z } from 'zod';
import {
  createClient,
  deleteOwnClient,
  getOwnClient,
  listOwnClients,
  updateOwnClient,
} from '../../domain/oauth/clients.js';
import { callerOf, signedInOperations } from '../api/v2-edge.js';
import type { SignedInCaller } from '../api/caller.js';
import {
  asApiError,
  clientIdParams,
  clientInputSchema,
  clientJson,
  oauthClientSchema,
} from './client-json.js';
import type { OAuthRouteOptions } from './oauth-route-options.js';

/** The v2 config of an operation on one's own OAuth clients: web session only, free. */
const ownClientsOperation = signedInOperations({
  tag: 'OAuth',
  issuers: ['webapp'],
  errorStatuses: [],
});

/** The signed-in caller (the edge has refused everyone else for auth: required). */
export function signedIn(request: Parameters<typeof callerOf>[0]): SignedInCaller {
  return callerOf(request) as SignedInCaller;
}

/**
 * /api/v2/oauth/clients: the signed-in user's OAuth clients (register, list, read, change,
 * delete). Web session (cookie) only: an API key or an OAuth token cannot register apps.
 */
export const oauthClientRoutes: FastifyPluginAsyncZod<OAuthRouteOptions> = async (
  app,
  { edge },
) => {
  const { db } = edge;
  const owner = (request: Parameters<typeof callerOf>[0]) => {
    const { user } = signedIn(request);
    return { userId: user.userId, role: user.role };
  };

  app.post(
    '/oauth/clients',
    {
      config: ownClientsOperation(
        'CreateOAuthClient',
        'Register an OAuth client',
        "Registers a public client (no secret: PKCE S256 proves it) for the signed-in user and returns its clientId. Each requested scope is pending until an administrator approves it (an administrator's own are approved at once); meanwhile only you can authorize with it, to test. At most 25 clients per user. 400 invalid_param names the bad field.",
      ),
      schema: { body: clientInputSchema, response: { 200: oauthClientSchema } },
    },
    async (request) =>
      clientJson(
        await createClient(db, owner(request), request.body, edge.now()).catch(asApiError),
      ),
  );

  app.get(
    '/oauth/clients',
    {
      config: ownClientsOperation('ListOAuthClients', 'Your OAuth clients', 'Oldest first.'),
      schema: { response: { 200: z.object({ items: z.array(oauthClientSchema) }) } },
    },
    async (request) => ({
      items: (await listOwnClients(db, signedIn(request).user.userId)).map(clientJson),
    }),
  );

  app.get(
    '/oauth/clients/:clientId',
    {
      config: ownClientsOperation(
        'GetOAuthClient',
        'One of your OAuth clients',
        "404 not_found for an unknown client or another user's.",
      ),
      schema: { params: clientIdParams, response: { 200: oauthClientSchema } },
    },
    async (request) =>
      clientJson(
        await getOwnClient(db, signedIn(request).user.userId, request.params.clientId).catch(
          asApiError,
        ),
      ),
  );

  app.patch(
    '/oauth/clients/:clientId',
    {
      config: ownClientsOperation(
        'UpdateOAuthClient',
        'Change one of your OAuth clients',
        'Any subset of the registration fields; redirectUris and requestedScopes are replaced whole. A newly requested scope is reviewed like the first ones; a scope no longer requested is dropped with the tokens that carry it.',
      ),
      schema: {
        params: clientIdParams,
        body: clientInputSchema.partial(),
        response: { 200: oauthClientSchema },
      },
    },
    async (request) => {
      const client = await updateOwnClient(
        db,
        owner(request),
        request.params.clientId,
        request.body,
        edge.now(),
      ).catch(asApiError);
      edge.credentialsChanged(request);
      return clientJson(client);
    },
  );

  app.delete(
    '/oauth/clients/:clientId',
    {
      config: ownClientsOperation(
        'DeleteOAuthClient',
        'Delete one of your OAuth clients',
        'Revokes every token it holds, then deletes it.',
      ),
      schema: {
        params: clientIdParams,
        response: { 200: z.object({ clientId: z.string(), deleted: z.literal(true) }) },
      },
    },
    async (request) => {
      const { clientId } = request.params;
      await deleteOwnClient(db, signedIn(request).user.userId, clientId, edge.now()).catch(
        asApiError,
      );
      edge.credentialsChanged(request);
      return { clientId, deleted: true as const };
    },
  );
};
