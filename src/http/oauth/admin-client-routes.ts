import type { FastifyPluginAsyncZod } from '@fastify/type-provider-zod';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import {
  listClientsForReview,
  reviewClient,
  revokeAllClientTokens,
} from '../../domain/oauth/client-review.js';
import { ApiError } from '../api/api-error.js';
import { signedInOperations } from '../api/v2-edge.js';
import { asApiError, clientIdParams, clientJson, oauthClientSchema } from './client-json.js';
import { signedIn } from './client-routes.js';
import type { OAuthRouteOptions } from './oauth-route-options.js';

/** The administrators' scope of the review operations (the accounts' catalogue). */
const ADMIN_REVIEW_SCOPE = 'api.admin.oauth.clients.review';

// Administrators signed in on the web, or their API keys carrying the review scope; never an
// OAuth token (an app does not review apps).
const adminOperation = signedInOperations(
  { tag: 'OAuth administration', scope: ADMIN_REVIEW_SCOPE, issuers: ['webapp', 'api'] },
  (description) =>
    `${description} Administrators only (scope ${ADMIN_REVIEW_SCOPE}; 403 otherwise): their web session or an API key of theirs carrying the scope.`,
);

/** The signed-in administrator's user id; anyone else is refused with 403 forbidden. */
function administrator(request: FastifyRequest): string {
  const { user } = signedIn(request);
  if (user.role !== 'admin') throw new ApiError('forbidden', 'administrators only');
  return user.userId;
}

const withdrawnSchema = z
  .object({
    tokens: z.uint32().describe('Live access tokens revoked.'),
    consents: z.uint32().describe('Remembered consents forgotten.'),
    codes: z.uint32().describe('Authorization codes not yet exchanged, thrown away.'),
  })
  .meta({ id: 'OAuthWithdrawnGrants' });

/**
 * /api/v2/admin/oauth/clients: the administrators' review of requested scopes, and their power
 * to disable a client and revoke its tokens.
 */
export const adminOAuthClientRoutes: FastifyPluginAsyncZod<OAuthRouteOptions> = async (
  app,
  { edge },
) => {
  const { db } = edge;

  app.get(
    '/admin/oauth/clients',
    {
      config: adminOperation(
        'ListOAuthClientsForReview',
        'OAuth clients to review',
        '`status=pending` (default): clients with a scope waiting for review, oldest first; `status=all`: every client.',
      ),
      schema: {
        querystring: z.object({ status: z.enum(['pending', 'all']).default('pending') }),
        response: { 200: z.object({ items: z.array(oauthClientSchema) }) },
      },
    },
    async (request) => {
      administrator(request);
      const clients = await listClientsForReview(db, { filter: request.query.status });
      return { items: clients.map(clientJson) };
    },
  );

  app.patch(
    '/admin/oauth/clients/:clientId',
    {
      config: adminOperation(
        'ReviewOAuthClient',
        'Review scopes of an OAuth client, or disable / enable it',
        '`scopes` maps requested scopes to `approved` or `rejected`; rejecting revokes the tokens that carry the scope. `status: disabled` refuses the client at both endpoints and revokes all its tokens.',
      ),
      schema: {
        params: clientIdParams,
        body: z.object({
          scopes: z.record(z.string(), z.enum(['approved', 'rejected'])).optional(),
          status: z.enum(['active', 'disabled']).optional(),
        }),
        response: { 200: z.object({ client: oauthClientSchema, withdrawn: withdrawnSchema }) },
      },
    },
    async (request) => {
      const reviewer = administrator(request);
      const { client, withdrawn } = await reviewClient(
        db,
        request.params.clientId,
        request.body,
        reviewer,
        edge.now(),
      ).catch(asApiError);
      if (withdrawn.tokens > 0) edge.credentialsChanged(request);
      return { client: clientJson(client), withdrawn };
    },
  );

  app.post(
    '/admin/oauth/clients/:clientId/revoke-tokens',
    {
      config: adminOperation(
        'RevokeOAuthClientTokens',
        'Revoke every token of an OAuth client',
        'Revokes all its live access tokens, forgets the consents users gave it and throws away unexchanged codes; the client stays as it is (disable it with PATCH).',
      ),
      schema: { params: clientIdParams, response: { 200: withdrawnSchema } },
    },
    async (request) => {
      administrator(request);
      const withdrawn = await revokeAllClientTokens(db, request.params.clientId, edge.now()).catch(
        asApiError,
      );
      edge.credentialsChanged(request);
      return withdrawn;
    },
  );
};
