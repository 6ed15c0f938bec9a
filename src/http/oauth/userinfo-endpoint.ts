import type { ApiApp } from '../app-context.js';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { OAUTH_PATHS } from '../../domain/oauth/discovery.js';
import { OAuthError } from '../../domain/oauth/oauth-error.js';
import { userInfoFor } from '../../domain/oauth/userinfo.js';
import type { OAuthEdge } from './oauth-edge.js';
import { allowAnyOrigin, noStore, toOAuthError } from './oauth-json.js';

const REALM = 'emutrack';

/** `"..."` of an RFC 6750 3 auth-param: quotes and backslashes cannot appear in our texts, but never trust. */
const quoted = (text: string) => `"${text.replace(/["\\]/g, '')}"`;

/**
 * The bearer token of `Authorization: Bearer <token>` (RFC 6750 2.1): undefined when no
 * Authorization header came, null when one came but is not a usable bearer token.
 */
function bearerToken(request: FastifyRequest): string | undefined | null {
  const header = request.headers.authorization;
  if (header === undefined) return undefined;
  const match = /^Bearer[ ]+([A-Za-z0-9\-._~+/]+=*)$/i.exec(header);
  return match ? match[1]! : null;
}

function refuse(reply: FastifyReply, status: number, error?: OAuthError): FastifyReply {
  // RFC 6750 3.1: no error code when the request carried no authentication at all.
  const challenge = error
    ? `Bearer realm=${quoted(REALM)}, error=${quoted(error.error)}, error_description=${quoted(error.description)}`
    : `Bearer realm=${quoted(REALM)}`;
  reply.header('www-authenticate', challenge);
  noStore(allowAnyOrigin(reply)).code(status);
  return error
    ? reply.send({ error: error.error, error_description: error.description })
    : reply.send();
}

/**
 * GET (and POST, OIDC Core 5.3.1) /oauth/userinfo: `sub` always, `preferred_username` with
 * api.auth.me.read. Errors per RFC 6750 3: 401 with WWW-Authenticate (invalid_token, or no
 * error code when no token was sent), 400 invalid_request for a malformed Authorization.
 */
export async function registerUserInfoEndpoint(app: ApiApp, edge: OAuthEdge): Promise<void> {
  await app.register(async (scope) => {
    scope.setErrorHandler((error: FastifyError, request, reply) => {
      const { status, error: oauthError } = toOAuthError(error, request);
      return refuse(reply, status, oauthError);
    });
    const handler = async (request: FastifyRequest, reply: FastifyReply) => {
      const token = bearerToken(request);
      if (token === undefined) return refuse(reply, 401);
      if (token === null)
        return refuse(
          reply,
          400,
          new OAuthError(
            'invalid_request',
            'the Authorization header must be "Bearer <access token>"',
          ),
        );
      const info = await userInfoFor(edge.db, token, edge.now());
      return noStore(allowAnyOrigin(reply)).type('application/json; charset=utf-8').send(info);
    };
    scope.get(OAUTH_PATHS.userinfo, { schema: { hide: true } }, handler);
    scope.post(OAUTH_PATHS.userinfo, { schema: { hide: true } }, handler);
  });
}
