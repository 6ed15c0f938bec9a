import type { FastifyPluginAsyncZod } from '@fastify/type-provider-zod';
import { z } from 'zod';
import { revokeCredential } from '../../../domain/accounts/credentials.js';
import { AUTH_ME_SCOPE } from '../../../domain/accounts/scopes.js';
import { changePasswordLimited, register, signIn } from '../../../domain/accounts/sign-in.js';
import { accountSettingsFromConfig } from '../../../domain/accounts/account-settings.js';
import {
  apiKeySummaryOf,
  credentialsBodySchema,
  sessionSchema,
  webSessionOf,
  webSessionSchema,
} from '../account-schemas.js';
import { ApiError } from '../api-error.js';
import type { RouteOptions } from '../../app-context.js';
import { isCrossOrigin } from '../cors.js';
import { clearSessionCookie, SESSION_COOKIE, setSessionCookie } from '../../session/web-session.js';
import { callerOf, clientAddress, quotaOf } from '../v2-edge.js';
import { authQuota } from './auth-quota.js';

/** 429 rate_limited for an attempt refused by its limit, with the wait (Retry-After). */
function throttledError(what: string, throttled: { retryAfterSeconds: number }): ApiError {
  return new ApiError(
    'rate_limited',
    `too many ${what}; retry in ${throttled.retryAfterSeconds} s`,
    throttled.retryAfterSeconds,
  );
}

/** Bodies of account operations are small: anything larger is refused (413) unread. */
export const ACCOUNT_BODY_LIMIT = 16 * 1024;

/**
 * Registration, sign-in, sign-out, password change and the session check (GetAuthMe). Sign-in
 * and registration answer the new web session's public fields and set the `token` cookie.
 */
export const authRoutes: FastifyPluginAsyncZod<RouteOptions> = async (app, { services }) => {
  const { db, config, costs } = services;
  const settings = accountSettingsFromConfig(config);
  const credentials = app.emutrackEdge.credentials;

  app.post(
    '/auth/register',
    {
      bodyLimit: ACCOUNT_BODY_LIMIT,
      config: {
        v2: {
          operationId: 'Register',
          tag: 'Auth',
          summary: 'Creates an account and signs it in',
          description:
            'JSON `{username, password}`: 3-32 characters of `[A-Za-z0-9_.-]`, unique regardless of case (409 username_taken); a password of 8-1024 characters that is not easy to guess (zxcvbn score 3 or more: common passwords such as `12345678` are 400 invalid_param). Registrations are limited per client address: 5, then backoff from a minute doubling to an hour (429 rate_limited with Retry-After). Answers the new web session (issuer webapp) and sets the `token` cookie (HttpOnly, SameSite=Lax, Path=/, Secure over https). Free of quota.',
          auth: 'none',
          cost: { free: true },
          errorStatuses: [409, 413, 429],
        },
      },
      schema: { body: credentialsBodySchema, response: { 200: webSessionSchema } },
    },
    async (request, reply) => {
      const signedIn = await register(
        db,
        { ...request.body, address: clientAddress(request) },
        settings,
      );
      if (!signedIn.ok) throw throttledError('registrations from this address', signedIn);
      setSessionCookie(request, reply, signedIn.secret, signedIn.session.expiresAt);
      return webSessionOf(signedIn.user.username, signedIn.session);
    },
  );

  app.post(
    '/auth/login',
    {
      bodyLimit: ACCOUNT_BODY_LIMIT,
      config: {
        v2: {
          operationId: 'Login',
          tag: 'Auth',
          summary: 'Signs in with a username and password',
          description: `JSON \`{username, password}\`. A wrong username and a wrong password get the same 401 invalid_credentials; a banned user 403 account_banned. Attempts are counted before the password is tried, per account and client address (${config.SIGN_IN_MAX_FAILURES} free, then each waits twice as long as the last, from 1 s up to ${config.SIGN_IN_WINDOW_SECONDS} s; a right password starts afresh) and per address across accounts (${config.SIGN_IN_MAX_FAILURES * 10} free): while waiting, 429 rate_limited with Retry-After. Failures from one address never slow the account down at another. Answers the new web session and sets the \`token\` cookie. Free of quota.`,
          auth: 'none',
          cost: { free: true },
          errorStatuses: [413],
        },
      },
      schema: { body: credentialsBodySchema, response: { 200: webSessionSchema } },
    },
    async (request, reply) => {
      const result = await signIn(
        db,
        { ...request.body, address: clientAddress(request) },
        settings,
      );
      if (!result.ok) {
        if (result.reason === 'throttled')
          throw throttledError('sign-ins for this account from this address', result);
        if (result.reason === 'banned')
          throw new ApiError('account_banned', 'the account is banned');
        throw new ApiError('invalid_credentials', 'wrong username or password');
      }
      setSessionCookie(request, reply, result.secret, result.session.expiresAt);
      return webSessionOf(result.user.username, result.session);
    },
  );

  app.post(
    '/auth/logout',
    {
      bodyLimit: ACCOUNT_BODY_LIMIT,
      config: {
        v2: {
          operationId: 'Logout',
          tag: 'Auth',
          summary: 'Signs out: revokes the web session of the `token` cookie and clears it',
          description:
            'Always succeeds (a missing or stale cookie is simply cleared). API keys are not touched: revoke them with DELETE /auth/api-keys/{revokeId}. Free of quota.',
          auth: 'none',
          cost: { free: true },
        },
      },
      schema: {
        response: {
          200: z
            .object({ signedOut: z.boolean().describe('Whether a live session was revoked.') })
            .meta({ id: 'LogoutData' }),
        },
      },
    },
    async (request, reply) => {
      // A page of another origin cannot sign the browser out (its cookie is not honoured there).
      const secret = isCrossOrigin(request, config) ? undefined : request.cookies[SESSION_COOKIE];
      let signedOut = false;
      if (secret) {
        const result = await credentials.authenticate(secret);
        if (result.ok && result.credential.issuer === 'webapp') {
          await revokeCredential(db, result.credential.revokeId);
          credentials.clear();
          signedOut = true;
        }
      }
      clearSessionCookie(request, reply);
      return { signedOut };
    },
  );

  app.patch(
    '/auth/password',
    {
      bodyLimit: ACCOUNT_BODY_LIMIT,
      config: {
        v2: {
          operationId: 'ChangePassword',
          tag: 'Auth',
          summary: "Changes the signed-in user's password and ends their other web sessions",
          description:
            'JSON `{currentPassword, newPassword}` (newPassword: 8-1024 characters, not easy to guess, as at registration), with a web session (cookie). A wrong currentPassword is 401 invalid_credentials; guesses are limited per account (5, then each waits twice as long as the last, up to 15 minutes: 429 rate_limited with Retry-After). The session making the change stays signed in; every other web session of the user is revoked. API keys stay. Free of quota.',
          auth: 'required',
          issuers: ['webapp'],
          cost: { free: true },
          errorStatuses: [413, 429],
        },
      },
      schema: {
        body: z.strictObject({
          currentPassword: z.string().max(1024),
          newPassword: z.string().max(1024),
        }),
        response: {
          200: z.object({ otherSessionsEnded: z.literal(true) }).meta({ id: 'ChangePasswordData' }),
        },
      },
    },
    async (request) => {
      const caller = callerOf(request);
      if (caller.kind !== 'credential') throw new ApiError('invalid_api_key', 'sign in first');
      const changed = await changePasswordLimited(
        db,
        {
          user: caller.user,
          currentPassword: request.body.currentPassword,
          newPassword: request.body.newPassword,
          keepCredentialId: caller.credential.credentialId,
        },
        settings,
      );
      if (!changed.ok && changed.reason === 'throttled')
        throw throttledError('guesses at the current password', changed);
      if (!changed.ok) throw new ApiError('invalid_credentials', 'currentPassword is wrong');
      credentials.clear();
      return { otherSessionsEnded: true as const };
    },
  );

  app.get(
    '/auth/me',
    {
      config: {
        v2: {
          operationId: 'GetAuthMe',
          tag: 'Auth',
          summary: 'The caller: user, credential and quota',
          description: `Checks a credential (bearer API key or OAuth access token, or the \`token\` cookie) and reports the quota: the user's bucket (shared by all their credentials) and, in \`remain\`, the smaller of what is left in it and of this credential's daily limit. Quota: ${costs.authMe.of()} per request.`,
          scope: AUTH_ME_SCOPE,
          auth: 'required',
          cost: { fixed: costs.authMe },
        },
      },
      schema: { response: { 200: sessionSchema } },
    },
    async (request) => {
      const caller = callerOf(request);
      if (caller.kind !== 'credential') throw new ApiError('invalid_api_key', 'sign in first');
      return {
        user: { userId: caller.user.userId },
        apiKey: apiKeySummaryOf(caller.credential),
        quota: await authQuota(quotaOf(request), config),
      };
    },
  );
};
