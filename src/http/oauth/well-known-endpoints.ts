import type { ApiApp } from '../app-context.js';
import { discoveryDocument, OAUTH_PATHS } from '../../domain/oauth/discovery.js';
import type { OAuthEdge } from './oauth-edge.js';
import { allowAnyOrigin } from './oauth-json.js';

/**
 * GET /.well-known/openid-configuration (OpenID Connect Discovery 1.0, RFC 8414) and
 * GET /.well-known/jwks.json (RFC 7517: the published signing keys). Both public and readable
 * from any origin. The key set is cached for a minute only: after a rotation the new kid must be
 * found soon (clients refetch on an unknown kid anyway).
 */
export function registerWellKnownEndpoints(app: ApiApp, edge: OAuthEdge): void {
  const discovery = discoveryDocument(edge.issuer);
  app.get(OAUTH_PATHS.discovery, { schema: { hide: true } }, async (_request, reply) =>
    allowAnyOrigin(reply).header('cache-control', 'public, max-age=3600').send(discovery),
  );
  app.get(OAUTH_PATHS.jwks, { schema: { hide: true } }, async (_request, reply) => {
    // The first key is made here when nothing has signed yet, so that the set is never empty.
    await edge.keys.current();
    const jwks = await edge.keys.jwks();
    return allowAnyOrigin(reply)
      .header('cache-control', 'public, max-age=60')
      .type('application/jwk-set+json')
      .send(jwks);
  });
}
