import type { FastifyInstance } from 'fastify';
import type { ApiApp } from '../app-context.js';
import { webPageSession } from '../session/web-session.js';
import { oauthAccountPanels, registerAccountOAuthForms } from '../account/oauth-account-panel.js';
import { adminOAuthClientRoutes } from './admin-client-routes.js';
import { registerAdminReviewPage } from './admin-review-page.js';
import { authorizationRoutes } from './authorization-routes.js';
import { registerAuthorizeEndpoint } from './authorize-endpoint.js';
import { oauthClientRoutes } from './client-routes.js';
import { createOAuthEdge, type OAuthEdge, type OAuthEdgeDeps } from './oauth-edge.js';
import { scheduleOAuthCleanup } from './oauth-cleanup-task.js';
import type { PageSession } from './page-session.js';
import { registerTokenEndpoint } from './token-endpoint.js';
import { registerUserInfoEndpoint } from './userinfo-endpoint.js';
import { registerWellKnownEndpoints } from './well-known-endpoints.js';

export interface RegisterOAuthDeps extends OAuthEdgeDeps {
  /** The web sign-in as the consent page uses it. Default: the accounts' (web-session.ts). */
  session?: PageSession;
}

/**
 * The OAuth 2.0 authorization server on the API app (after the cookie plugin):
 * /oauth/authorize (and its consent page), /oauth/token, /oauth/userinfo, discovery and JWKS;
 * the admin review page; the account page's OAuth panels; the clean-up of expired rows. Returns
 * the edge (issuer, keys), which the v2 operations on clients and authorizations take
 * (oauthOperations, in the /api/v2 scope).
 */
export async function registerOAuth(app: ApiApp, deps: RegisterOAuthDeps): Promise<OAuthEdge> {
  const edge = createOAuthEdge(deps);
  registerWellKnownEndpoints(app, edge);
  await registerTokenEndpoint(app, edge);
  await registerUserInfoEndpoint(app, edge);
  await registerAuthorizeEndpoint(app, edge, deps.session ?? webPageSession);
  await registerAdminReviewPage(app, edge);
  await registerAccountOAuthForms(app, edge);
  for (const panel of oauthAccountPanels(edge)) app.accountPanels.add(panel);
  scheduleOAuthCleanup(app, edge);
  if (deps.config.OAUTH_KEY_SECRET !== undefined) {
    // With a configured secret the first signing key is made when the server starts, so that the
    // JWKS is ready before the first token. Without one it waits for first use: a generated
    // secret file should only appear where OAuth is actually used.
    app.addHook('onListen', async () => {
      await edge.keys
        .current()
        .catch((err: unknown) =>
          edge.logger.error({ err }, 'the OAuth signing key could not be loaded or made'),
        );
    });
  }
  return edge;
}

/**
 * The v2 operations on OAuth clients (/oauth/clients, /admin/oauth/clients) and authorizations
 * (/auth/authorizations), on the /api/v2 scope.
 */
export async function oauthOperations(scope: FastifyInstance, edge: OAuthEdge): Promise<void> {
  await scope.register(oauthClientRoutes, { edge });
  await scope.register(adminOAuthClientRoutes, { edge });
  await scope.register(authorizationRoutes, { edge });
}
