import type { FastifyPluginAsyncZod } from '@fastify/type-provider-zod';
import { z } from 'zod';
import { listAuthorizations, revokeAuthorization } from '../../domain/oauth/authorizations.js';
import { signedInOperations } from '../api/v2-edge.js';
import {
  asApiError,
  authorizationJson,
  authorizationSchema,
  clientIdParams,
} from './client-json.js';
import { signedIn } from './client-routes.js';
import type { OAuthRouteOptions } from './oauth-route-options.js';

const operation = signedInOperations({ tag: 'Auth', issuers: ['webapp'] });

/** /api/v2/auth/authorizations: the apps the signed-in user has authorized, and revoking one. */
export const authorizationRoutes: FastifyPluginAsyncZod<OAuthRouteOptions> = async (
  app,
  { edge },
) => {
  app.get(
    '/auth/authorizations',
    {
      config: operation(
        'ListAuthorizations',
        'The apps you have authorized',
        'Apps holding a live access token or a remembered consent of yours, most recently authorized first. Web session only.',
      ),
      schema: { response: { 200: z.object({ items: z.array(authorizationSchema) }) } },
    },
    async (request) => ({
      items: (await listAuthorizations(edge.db, signedIn(request).user.userId, edge.now())).map(
        authorizationJson,
      ),
    }),
  );

  app.delete(
    '/auth/authorizations/:clientId',
    {
      config: operation(
        'RevokeAuthorization',
        'Revoke an app',
        "Revokes the app's access tokens, forgets your consent and discards its unexchanged codes, at once; the next authorization asks you again. 404 not_found when the app holds nothing of yours.",
      ),
      schema: {
        params: clientIdParams,
        response: {
          200: z.object({
            clientId: z.string(),
            revokedTokens: z.uint32(),
          }),
        },
      },
    },
    async (request) => {
      const { clientId } = request.params;
      const withdrawn = await revokeAuthorization(
        edge.db,
        signedIn(request).user.userId,
        clientId,
        edge.now(),
      ).catch(asApiError);
      edge.credentialsChanged(request);
      return { clientId, revokedTokens: withdrawn.tokens };
    },
  );
};
