import fastifyFormbody from '@fastify/formbody';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AccountError } from '../../domain/accounts/account-error.js';
import {
  issueCredential,
  listCredentials,
  revokeCredential,
} from '../../domain/accounts/credentials.js';
import { scopesOfRole } from '../../domain/accounts/scopes.js';
import { changePasswordLimited, register, signIn } from '../../domain/accounts/sign-in.js';
import { accountSettingsFromConfig } from '../../domain/accounts/account-settings.js';
import type { ApiServices } from '../app-context.js';
import { clientAddress } from '../api/v2-edge.js';
import {
  clearSessionCookie,
  csrfToken,
  csrfValid,
  loginUrl,
  safeNextPath,
  setSessionCookie,
  signedInBrowser,
  SESSION_COOKIE,
  type SignedInBrowser,
} from '../session/web-session.js';
import {
  developmentTab,
  KEY_LIFETIMES,
  profileTab,
  signInForm,
  tabs,
} from './account-page-views.js';
import { renderPage } from './page-layout.js';

/** Pages are not API operations: kept out of the OpenAPI document. */
const HIDDEN = { hide: true };

/** Form posts are small; anything larger is refused unread. */
const FORM_BODY_LIMIT = 16 * 1024;

/** The route options of every form post. */
const FORM_POST = { bodyLimit: FORM_BODY_LIMIT, schema: HIDDEN };

type Form = Record<string, string | string[] | undefined>;

const field = (form: Form, name: string): string => {
  const value = form[name];
  return typeof value === 'string' ? value : '';
};

/** A wait in words: seconds under two minutes, else minutes (rounded up). */
const waitText = (seconds: number) =>
  seconds < 120 ? `${seconds} seconds` : `${Math.ceil(seconds / 60)} minutes`;

export interface AccountPagesOptions {
  services: ApiServices;
}

/**
 * The account pages, server-rendered and usable without JavaScript: /login and /register (both
 * return to `next`, a path on this site), /logout, and /account with a Profile tab (password)
 * and a Development tab (API keys: list, create with name, scopes and lifetime, shown once;
 * revoke; then the panels others add through app.accountPanels). Every form carries the CSRF
 * token; a post without it is refused with 403.
 */
export async function accountPages(
  app: FastifyInstance,
  options: AccountPagesOptions,
): Promise<void> {
  const { db, config } = options.services;
  const settings = accountSettingsFromConfig(config);
  const credentials = app.emutrackEdge.credentials;
  const panels = app.accountPanels;
  await app.register(fastifyFormbody, { bodyLimit: FORM_BODY_LIMIT });

  const html = (reply: FastifyReply, status: number, page: string) =>
    reply
      .code(status)
      .type('text/html; charset=utf-8')
      .header('cache-control', 'no-store')
      .send(page);

  /** 403 for a post without this browser's CSRF token (an old tab, or another site's form). */
  const refuseForgery = (request: FastifyRequest, reply: FastifyReply) =>
    html(
      reply,
      403,
      renderPage({
        title: 'Form expired',
        body: `<div class="card"><h1>This form has expired</h1><p>The page was open too long or came from elsewhere. <a href="${request.url.startsWith('/account') ? '/account' : '/login'}">Load it again</a> and resubmit.</p></div>`,
      }),
    );

  const signInPage = (
    request: FastifyRequest,
    reply: FastifyReply,
    mode: 'login' | 'register',
    status: number,
    extra: { next: string; username?: string; error?: string },
  ) =>
    html(
      reply,
      status,
      renderPage({
        title: mode === 'login' ? 'Sign in' : 'Register',
        body: signInForm({ mode, csrfToken: csrfToken(request, reply), ...extra }),
      }),
    );

  for (const mode of ['login', 'register'] as const) {
    app.get(`/${mode}`, { schema: HIDDEN }, async (request, reply) => {
      const next = safeNextPath((request.query as Form).next);
      if (await signedInBrowser(request)) return reply.redirect(next, 303);
      return signInPage(request, reply, mode, 200, { next });
    });

    app.post(`/${mode}`, FORM_POST, async (request, reply) => {
      const form = (request.body ?? {}) as Form;
      if (!csrfValid(request, form)) return refuseForgery(request, reply);
      const next = safeNextPath(form.next);
      const username = field(form, 'username');
      const password = field(form, 'password');
      if (mode === 'register') {
        try {
          const signedIn = await register(
            db,
            { username, password, address: clientAddress(request) },
            settings,
          );
          if (!signedIn.ok) {
            reply.header('retry-after', signedIn.retryAfterSeconds);
            return signInPage(request, reply, mode, 429, {
              next,
              username,
              error: `Too many registrations from this address. Try again in ${waitText(signedIn.retryAfterSeconds)}.`,
            });
          }
          setSessionCookie(request, reply, signedIn.secret, signedIn.session.expiresAt);
          return reply.redirect(next, 303);
        } catch (err) {
          if (!(err instanceof AccountError)) throw err;
          const status = err.code === 'username_taken' ? 409 : 400;
          return signInPage(request, reply, mode, status, { next, username, error: err.message });
        }
      }
      const result = await signIn(
        db,
        { username, password, address: clientAddress(request) },
        settings,
      );
      if (result.ok) {
        setSessionCookie(request, reply, result.secret, result.session.expiresAt);
        return reply.redirect(next, 303);
      }
      if (result.reason === 'throttled') {
        reply.header('retry-after', result.retryAfterSeconds);
        return signInPage(request, reply, mode, 429, {
          next,
          username,
          error: `Too many failed sign-ins. Try again in ${waitText(result.retryAfterSeconds)}.`,
        });
      }
      const error =
        result.reason === 'banned' ? 'This account is banned.' : 'Wrong username or password.';
      return signInPage(request, reply, mode, result.reason === 'banned' ? 403 : 401, {
        next,
        username,
        error,
      });
    });
  }

  app.post('/logout', FORM_POST, async (request, reply) => {
    if (!csrfValid(request, (request.body ?? {}) as Form)) return refuseForgery(request, reply);
    const secret = request.cookies[SESSION_COOKIE];
    if (secret) {
      const result = await credentials.authenticate(secret);
      if (result.ok && result.credential.issuer === 'webapp') {
        await revokeCredential(db, result.credential.revokeId);
        credentials.clear();
      }
    }
    clearSessionCookie(request, reply);
    return reply.redirect('/login', 303);
  });

  /** The account page of a signed-in browser. */
  const accountPage = async (
    request: FastifyRequest,
    reply: FastifyReply,
    signedIn: SignedInBrowser,
    view: {
      tab: 'profile' | 'development';
      status?: number;
      error?: string;
      notice?: string;
      newKey?: { secret: string; name: string };
    },
  ) => {
    const token = csrfToken(request, reply);
    const { user, session } = signedIn;
    let body: string;
    if (view.tab === 'profile') {
      body = profileTab({ user, csrfToken: token, error: view.error, notice: view.notice });
    } else {
      const list = await listCredentials(db, user.userId, { includeInactive: true });
      const extra = [];
      for (const panel of panels.list()) {
        extra.push({
          id: panel.id,
          title: panel.title,
          html: await panel.render({ request, signedIn, csrfToken: token }),
        });
      }
      body = developmentTab({
        credentials: list,
        currentRevokeId: session.revokeId,
        creatableScopes: scopesOfRole(user.role),
        defaultLifetimeDays: config.API_KEY_DEFAULT_LIFETIME_DAYS,
        csrfToken: token,
        error: view.error,
        notice: view.notice,
        newKey: view.newKey,
        panels: extra,
      });
    }
    return html(
      reply,
      view.status ?? 200,
      renderPage({
        title: 'Account',
        username: user.username,
        csrfToken: token,
        scriptNonce: view.newKey ? request.cspNonce : undefined,
        body: `<h1>Your account</h1>${tabs(view.tab)}${body}`,
      }),
    );
  };

  /** The signed-in browser, or undefined after answering with a redirect to sign in. */
  const requireSignIn = async (request: FastifyRequest, reply: FastifyReply, next: string) => {
    const signedIn = await signedInBrowser(request);
    if (!signedIn) await reply.redirect(loginUrl(next), 303);
    return signedIn;
  };

  app.get('/account', { schema: HIDDEN }, async (request, reply) => {
    const query = request.query as Form;
    const tab = query.tab === 'development' ? 'development' : 'profile';
    const signedIn = await requireSignIn(request, reply, `/account?tab=${tab}`);
    if (!signedIn) return reply;
    const notice = query.revoked === '1' ? 'The key was revoked.' : undefined;
    return accountPage(request, reply, signedIn, { tab, notice });
  });

  app.post('/account/keys', FORM_POST, async (request, reply) => {
    const form = (request.body ?? {}) as Form;
    if (!csrfValid(request, form)) return refuseForgery(request, reply);
    const signedIn = await requireSignIn(request, reply, '/account?tab=development');
    if (!signedIn) return reply;
    const { user } = signedIn;
    const scopes =
      form.scopes === undefined ? [] : [form.scopes].flat().filter((s) => s !== undefined);
    const days = Number(field(form, 'expiresInDays') || config.API_KEY_DEFAULT_LIFETIME_DAYS);
    const name = field(form, 'name').trim();
    const fail = (error: string) =>
      accountPage(request, reply, signedIn, { tab: 'development', status: 400, error });
    if (name === '' || name.length > 100)
      return fail('Give the key a name (at most 100 characters).');
    if (scopes.length === 0) return fail('Choose at least one scope.');
    if (
      !(KEY_LIFETIMES as readonly number[]).includes(days) ||
      days > config.API_KEY_MAX_LIFETIME_DAYS
    ) {
      return fail('Choose one of the offered lifetimes.');
    }
    try {
      const { secret, credential } = await issueCredential(
        db,
        {
          userId: user.userId,
          issuer: 'api',
          name,
          scopes,
          expiresAt: new Date(Date.now() + days * 86_400_000),
          dailyTokenLimit: settings.dailyTokenLimit,
        },
        { maxLifetimeSeconds: settings.maxLifetimeSeconds },
      );
      return accountPage(request, reply, signedIn, {
        tab: 'development',
        newKey: { secret, name: credential.name },
      });
    } catch (err) {
      if (!(err instanceof AccountError)) throw err;
      return fail(err.message);
    }
  });

  app.post<{ Params: { revokeId: string } }>(
    '/account/keys/:revokeId/revoke',
    FORM_POST,
    async (request, reply) => {
      if (!csrfValid(request, (request.body ?? {}) as Form)) return refuseForgery(request, reply);
      const signedIn = await requireSignIn(request, reply, '/account?tab=development');
      if (!signedIn) return reply;
      const revoked = await revokeCredential(db, request.params.revokeId, {
        userId: signedIn.user.userId,
      });
      if (!revoked) {
        return accountPage(request, reply, signedIn, {
          tab: 'development',
          status: 404,
          error: 'No such key of yours.',
        });
      }
      credentials.clear();
      return reply.redirect('/account?tab=development&revoked=1', 303);
    },
  );

  app.post('/account/password', FORM_POST, async (request, reply) => {
    const form = (request.body ?? {}) as Form;
    if (!csrfValid(request, form)) return refuseForgery(request, reply);
    const signedIn = await requireSignIn(request, reply, '/account');
    if (!signedIn) return reply;
    try {
      const changed = await changePasswordLimited(
        db,
        {
          user: signedIn.user,
          currentPassword: field(form, 'currentPassword'),
          newPassword: field(form, 'newPassword'),
          keepCredentialId: signedIn.session.credentialId,
        },
        settings,
      );
      if (!changed.ok && changed.reason === 'throttled') {
        reply.header('retry-after', changed.retryAfterSeconds);
        return accountPage(request, reply, signedIn, {
          tab: 'profile',
          status: 429,
          error: `Too many wrong guesses at the current password. Try again in ${waitText(changed.retryAfterSeconds)}.`,
        });
      }
      if (!changed.ok) {
        return accountPage(request, reply, signedIn, {
          tab: 'profile',
          status: 401,
          error: 'The current password is wrong.',
        });
      }
      credentials.clear();
      return accountPage(request, reply, signedIn, {
        tab: 'profile',
        notice: 'Password changed. Your other browsers are signed out.',
      });
    } catch (err) {
      if (!(err instanceof AccountError)) throw err;
      return accountPage(request, reply, signedIn, {
        tab: 'profile',
        status: 400,
        error: err.message,
      });
    }
  });
}
