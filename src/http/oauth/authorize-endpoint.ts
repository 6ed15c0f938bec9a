import type { ApiApp } from '../app-context.js';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import {
  hasRememberedConsent,
  issueAuthorizationCode,
  rememberConsent,
  userRefusal,
} from '../../domain/oauth/authorization-grant.js';
import {
  parseAuthorizationRequest,
  type AuthorizationRefusal,
  type AuthorizationRequest,
  type RequestParams,
} from '../../domain/oauth/authorization-request.js';
import { OAUTH_PATHS } from '../../domain/oauth/discovery.js';
import type { OAuthErrorValue } from '../../domain/oauth/oauth-error.js';
import { isDatabaseUnavailable } from '../api/api-error.js';
import { clientAddress } from '../api/v2-edge.js';
import {
  authorizationErrorPage,
  authorizationNotice,
  CONSENT_FIELDS,
  consentPage,
} from './authorize-pages.js';
import type { OAuthEdge } from './oauth-edge.js';
import type { PageSession } from './page-session.js';
import type { SignedInBrowser } from '../session/web-session.js';
import { html } from '../html/html.js';
import { answerSwitches } from '../web/personal-page.js';
import { formBody } from '../html/form-body.js';

/** The longest `next` the sign-in page returns to (web-session.ts safeNextPath). */
const SIGN_IN_NEXT_MAX_LENGTH = 2000;

/** Headers of every page of the authorization endpoint. */
function pageHeaders(reply: FastifyReply): FastifyReply {
  return (
    reply
      .header('cache-control', 'no-store')
      // RFC 6749 10.13 / RFC 9700 4.7: the consent page may not be framed (clickjacking): the
      // app's security headers refuse framing of every page (src/http/security-headers.ts).
      // The page's URL carries state and PKCE values: do not hand it to the homepage link.
      .header('referrer-policy', 'no-referrer')
      .type('text/html; charset=utf-8')
  );
}

function sendPage(reply: FastifyReply, status: number, body: string): FastifyReply {
  return pageHeaders(reply).code(status).send(body);
}

/** Sends the browser back to the client: its redirect_uri (query kept) plus our parameters and iss. */
function redirectToClient(
  reply: FastifyReply,
  redirectUri: string,
  params: Record<string, string | undefined>,
  issuer: string,
): FastifyReply {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries(params)) {
    if (value !== undefined) url.searchParams.set(name, value);
  }
  // RFC 9207: the issuer in every authorization response, success or error (mix-up defence).
  url.searchParams.set('iss', issuer);
  return reply.header('cache-control', 'no-store').redirect(url.toString(), 302);
}

function refuse(
  http: FastifyRequest,
  reply: FastifyReply,
  refusal: AuthorizationRefusal,
  issuer: string,
): FastifyReply {
  if (refusal.kind === 'page')
    return sendPage(reply, 400, authorizationErrorPage(http, refusal.error, refusal.description));
  return redirectToClient(
    reply,
    refusal.redirectUri,
    { error: refusal.error, error_description: refusal.description, state: refusal.state },
    issuer,
  );
}

function redirectError(
  reply: FastifyReply,
  request: AuthorizationRequest,
  error: OAuthErrorValue,
  description: string,
  issuer: string,
): FastifyReply {
  return redirectToClient(
    reply,
    request.redirectUri,
    { error, error_description: description, state: request.state },
    issuer,
  );
}

/** Query parameters as the RFC counts them: a name given twice is an array. */
function paramsOf(query: string): RequestParams {
  const params: RequestParams = {};
  for (const [name, value] of new URLSearchParams(query)) {
    const seen = params[name];
    params[name] = seen === undefined ? value : [...(Array.isArray(seen) ? seen : [seen]), value];
  }
  return params;
}

function queryOf(request: FastifyRequest): string {
  const at = request.url.indexOf('?');
  return at < 0 ? '' : request.url.slice(at + 1);
}

/**
 * GET and POST /oauth/authorize (RFC 6749 4.1.1-4.1.2 with RFC 7636, RFC 9207, OIDC Core
 * 3.1.2). GET checks the request, sends a signed-out browser to sign in (coming back to the
 * same URL), and then either issues a code at once (consent remembered for these scopes) or
 * shows the consent page. The page's form POSTs the same query string back with the decision
 * and the CSRF token; everything is checked again then. Bad client_id or redirect_uri: an
 * error page, never a redirect; every other refusal: a redirect with error, state and iss.
 */
export async function registerAuthorizeEndpoint(
  app: ApiApp,
  edge: OAuthEdge,
  session: PageSession,
): Promise<void> {
  const { issuer } = edge;

  const rateLimit = async (request: FastifyRequest, reply: FastifyReply) => {
    const wait = await edge.authorizeLimit.take(clientAddress(request));
    if (wait === undefined) return;
    reply.header('retry-after', wait);
    return sendPage(
      reply,
      429,
      authorizationNotice(request, (t) => ({
        title: t.tooManyRequests,
        heading: t.tooManyRequests,
        text: html`${t.waitAndRetry(wait)}`,
      })),
    );
  };

  /** Issues the code and sends the browser back with it (RFC 6749 4.1.2, RFC 9207). */
  const grant = async (
    reply: FastifyReply,
    request: AuthorizationRequest,
    browser: SignedInBrowser,
  ) => {
    const code = await issueAuthorizationCode(
      edge.db,
      request,
      { userId: browser.user.userId, role: browser.user.role, authTime: browser.session.createdAt },
      edge.now(),
    );
    return redirectToClient(reply, request.redirectUri, { code, state: request.state }, issuer);
  };

  await app.register(async (scope) => {
    await formBody(scope);
    scope.addHook('preHandler', answerSwitches);
    scope.setErrorHandler((error: FastifyError, request, reply) => {
      const unavailable = isDatabaseUnavailable(error);
      if (!unavailable && (error.statusCode ?? 500) >= 500)
        request.log.error({ err: error }, 'authorization request failed');
      const status = unavailable ? 503 : error.statusCode && error.statusCode < 500 ? 400 : 500;
      return sendPage(
        reply,
        status,
        authorizationNotice(request, (t) => ({
          title: t.authorizationFailed,
          heading: t.authorizationWentWrong,
          text: html`${
            unavailable
              ? t.serviceUnavailable
              : status === 400
                ? t.requestUnreadable
                : t.internalError(request.id)
          }`,
        })),
      );
    });

    scope.get(
      OAUTH_PATHS.authorize,
      { onRequest: rateLimit, schema: { hide: true } },
      async (req, reply) => {
        const query = queryOf(req);
        const parsed = await parseAuthorizationRequest(edge.db, paramsOf(query));
        if (!parsed.ok) return refuse(req, reply, parsed.refusal, issuer);
        const { request } = parsed;
        const browser = await session.signedIn(req);
        if (!browser) {
          if (request.promptNone)
            return redirectError(
              reply,
              request,
              'login_required',
              'the user is not signed in',
              issuer,
            );
          const back = `${OAUTH_PATHS.authorize}?${query}`;
          // The sign-in page keeps `next` paths up to this length; a longer request would be lost.
          if (back.length > SIGN_IN_NEXT_MAX_LENGTH)
            return redirectError(
              reply,
              request,
              'invalid_request',
              `the authorization request is longer than ${SIGN_IN_NEXT_MAX_LENGTH} characters`,
              issuer,
            );
          return reply.header('cache-control', 'no-store').redirect(session.loginUrl(back), 302);
        }
        const refusal = userRefusal(request, browser.user);
        if (refusal)
          return redirectError(reply, request, refusal.error, refusal.description, issuer);
        if (
          !request.promptConsent &&
          (await hasRememberedConsent(edge.db, browser.user.userId, request, edge.now()))
        ) {
          return grant(reply, request, browser);
        }
        if (request.promptNone)
          return redirectError(
            reply,
            request,
            'consent_required',
            'the user has not consented yet',
            issuer,
          );
        return sendPage(
          reply,
          200,
          consentPage(req, {
            request,
            query,
            username: browser.user.username,
            isOwner: browser.user.userId === request.client.ownerId,
            csrf: await session.csrfField(req, reply),
            action: OAUTH_PATHS.authorize,
          }),
        );
      },
    );

    scope.post(
      OAUTH_PATHS.authorize,
      { onRequest: rateLimit, bodyLimit: 16 * 1024, schema: { hide: true } },
      async (req, reply) => {
        const form = (req.body ?? {}) as Record<string, unknown>;
        const query =
          typeof form[CONSENT_FIELDS.request] === 'string'
            ? (form[CONSENT_FIELDS.request] as string)
            : '';
        const parsed = await parseAuthorizationRequest(edge.db, paramsOf(query));
        if (!parsed.ok) return refuse(req, reply, parsed.refusal, issuer);
        const { request } = parsed;
        const browser = await session.signedIn(req);
        if (!browser || !(await session.csrfValid(req, form))) {
          // No redirect: a forged or stale form must not produce an answer at the client.
          return sendPage(
            reply,
            403,
            authorizationNotice(req, (t) => ({
              title: t.tryAgainTitle,
              heading: t.formExpiredHeading,
              text: html`${t.consentExpired}
                <a href="${`${OAUTH_PATHS.authorize}?${query}`}">${t.consentRestart}</a>.`,
            })),
          );
        }
        const decision = form[CONSENT_FIELDS.decision];
        if (decision === 'deny')
          return redirectError(
            reply,
            request,
            'access_denied',
            'the user denied the request',
            issuer,
          );
        if (decision !== 'allow')
          return redirectError(reply, request, 'invalid_request', 'no decision was made', issuer);
        const refusal = userRefusal(request, browser.user);
        if (refusal)
          return redirectError(reply, request, refusal.error, refusal.description, issuer);
        await rememberConsent(edge.db, browser.user.userId, request, edge.now());
        return grant(reply, request, browser);
      },
    );
  });
}
