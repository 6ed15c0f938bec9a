import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { OAuthError } from '../../domain/oauth/oauth-error.js';
import { isDatabaseUnavailable } from '../api/api-error.js';

/** Headers of every token-endpoint answer (RFC 6749 5.1: tokens must not be cached). */
export function noStore(reply: FastifyReply): FastifyReply {
  return reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
}

/**
 * Endpoints a browser app (a public client on another origin) calls with fetch: the answer may
 * be read from any origin. No cookie is ever read by them, so this opens nothing. (The app's
 * CORS plugin, src/http/api/cors.ts, sets it and answers the preflights; this keeps it on answers
 * sent from error handlers too.)
 */
export function allowAnyOrigin(reply: FastifyReply): FastifyReply {
  return reply.header('access-control-allow-origin', '*');
}

/**
 * What a failure at a JSON OAuth endpoint is told as: OAuthError as itself (RFC 6749 5.2);
 * Fastify's refusals of the request (wrong media type, unreadable or oversized body) as
 * invalid_request; a database away as temporarily_unavailable (503); anything else as
 * server_error (500, logged, details kept out of the answer).
 */
export function toOAuthError(
  error: FastifyError,
  request: FastifyRequest,
): { status: number; error: OAuthError } {
  if (error instanceof OAuthError) {
    return {
      status: error.error === 'invalid_client' || error.error === 'invalid_token' ? 401 : 400,
      error,
    };
  }
  if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) {
    const description =
      error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE'
        ? 'the body must be application/x-www-form-urlencoded'
        : error.code === 'FST_ERR_CTP_BODY_TOO_LARGE'
          ? 'the body is too large'
          : 'the request body cannot be read';
    return { status: 400, error: new OAuthError('invalid_request', description) };
  }
  if (isDatabaseUnavailable(error)) {
    request.log.warn({ err: error }, 'database unreachable');
    return {
      status: 503,
      error: new OAuthError(
        'temporarily_unavailable',
        'the service is unavailable; try again shortly',
      ),
    };
  }
  request.log.error({ err: error }, 'OAuth request failed');
  return {
    status: 500,
    error: new OAuthError('server_error', `internal error (request ${request.id})`),
  };
}

/** Sends `{error, error_description}` with the status and no-store. */
export function sendOAuthError(
  reply: FastifyReply,
  status: number,
  error: OAuthError,
): FastifyReply {
  return noStore(allowAnyOrigin(reply))
    .code(status)
    .type('application/json; charset=utf-8')
    .send({ error: error.error, error_description: error.description });
}
