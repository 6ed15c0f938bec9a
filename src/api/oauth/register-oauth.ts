import type { FastifyInstance } from 'fastify';
import { registerAuthorizeEndpoint } from './authorize-endpoint.js';
import { createOAuthEdge, type OAuthEdge, type OAuthEdgeDeps } from './oauth-edge.js';
import { scheduleOAuthCleanup } from './oauth-cleanup-task.js';
import type { PageSession } from './page-session.js';
import { registerTokenEndpoint } from './token-endpoint.js';
import { registerUserInfoEndpoint } from './userinfo-endpoint.js';
import { registerWellKnownEndpoints } from './well-known-endpoints.js';

export interface RegisterOAuthDeps extends OAuthEdgeDeps {
  /** The accounts' web sign-in as the OAuth pages use it. */
  session: PageSession;
}

/**
 * The OAuth 2.0 authorization server on the API app: /oauth/authorize, /oauth/token,
 * /oauth/userinfo, the discovery document and the JWKS, and the clean-up of expired rows.
 * Returns the edge (issuer, keys) for the caller's use.
 */
export async function registerOAuth(
  app: FastifyInstance,
  deps: RegisterOAuthDeps,
): Promise<OAuthEdge> {
  const edge = createOAuthEdge(deps);
  registerWellKnownEndpoints(app, edge);
  await registerTokenEndpoint(app, edge);
  await registerUserInfoEndpoint(app, edge);
  await registerAuthorizeEndpoint(app, edge, deps.session);
  scheduleOAuthCleanup(app, edge);
  return edge;
}
