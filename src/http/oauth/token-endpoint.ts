import type { ApiApp } from '../app-context.js';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { OAuthError } from '../../domain/oauth/oauth-error.js';
import { OAUTH_PATHS } from '../../domain/oauth/discovery.js';
import { exchangeAuthorizationCode } from '../../domain/oauth/token-exchange.js';
import type { RequestParams } from '../../domain/oauth/authorization-request.js';
import type { OAuthEdge } from './oauth-edge.js';
import { clientAddress } from '../api/v2-edge.js';
import { allowAnyOrigin, noStore, sendOAuthError, toOAuthError } from './oauth-json.js';
import { FORM_CONTENT_TYPE, formBody } from '../html/form-body.js';

const BODY_LIMIT = 16 * 1024;

/** Refuses an address over its token-request rate: 429 with Retry-After (before the body is read). */
export function rateLimited(limit: OAuthEdge['tokenLimit']) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const wait = await limit.take(clientAddress(request));
    if (wait === undefined) return;
    reply.header('retry-after', wait);
    return sendOAuthError(
      reply,
      429,
      new OAuthError(
        'temporarily_unavailable',
        `too many requests from this address; retry in ${wait} s`,
      ),
    );
  };
}

/** The dailyTokenLimit of an access token: the same as an API key's (API_KEY_DAILY_TOKEN_LIMIT). */
function dailyTokenLimit(edge: OAuthEdge): number {
  return edge.config.API_KEY_DAILY_TOKEN_LIMIT;
}

/**
 * POST /oauth/token (RFC 6749 4.1.3 / 5). Form body only; public clients (no secret: PKCE);
 * every answer carries Cache-Control: no-store; errors are `{error, error_description}`, 400 or
 * 401 for invalid_client. Rate-limited per address. Readable from any origin (browser apps).
 */
export async function registerTokenEndpoint(app: ApiApp, edge: OAuthEdge): Promise<void> {
  await app.register(async (scope) => {
    await formBody(scope);
    scope.setErrorHandler((error: FastifyError, request, reply) => {
      const { status, error: oauthError } = toOAuthError(error, request);
      if (oauthError.tokensRevoked) edge.credentialsChanged(request);
      return sendOAuthError(reply, status, oauthError);
    });
    scope.post(
      OAUTH_PATHS.token,
      { bodyLimit: BODY_LIMIT, onRequest: rateLimited(edge.tokenLimit), schema: { hide: true } },
      async (request, reply) => {
        const type = (request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
        if (type !== FORM_CONTENT_TYPE) {
          throw new OAuthError('invalid_request', `the body must be ${FORM_CONTENT_TYPE}`);
        }
        const tokens = await exchangeAuthorizationCode(
          {
            params: (request.body ?? {}) as RequestParams,
            authorizationHeader: request.headers.authorization !== undefined,
          },
          {
            db: edge.db,
            keys: edge.keys,
            issuer: edge.issuer,
            dailyTokenLimit: dailyTokenLimit(edge),
            now: edge.now(),
          },
        );
        return noStore(allowAnyOrigin(reply)).type('application/json; charset=utf-8').send(tokens);
      },
    );
  });
}
