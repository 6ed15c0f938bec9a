import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { listCredentials } from '../../domain/accounts/credentials.js';
import { scopesOfRole } from '../../domain/accounts/scopes.js';
import { accountSettingsFromConfig } from '../../domain/accounts/account-settings.js';
import type { ApiServices } from '../app-context.js';
import {
  csrfToken,
  loginUrl,
  signedInBrowser,
  type SignedInBrowser,
} from '../session/web-session.js';
import { developmentTab, profileTab, signInForm, tabs } from './account-page-views.js';
import { renderPage } from './page-layout.js';

/** Pages are not API operations: kept out of the OpenAPI document. */
export const HIDDEN = { hide: true };

/** Form posts are small; anything larger is refused unread. */
export const FORM_BODY_LIMIT = 16 * 1024;

/** The route options of every form post. */
export const FORM_POST = { bodyLimit: FORM_BODY_LIMIT, schema: HIDDEN };

export type Form = Record<string, string | string[] | undefined>;

export const field = (form: Form, name: string): string => {
  const value = form[name];
  return typeof value === 'string' ? value : '';
};

/** A wait in words: seconds under two minutes, else minutes (rounded up). */
export const waitText = (seconds: number) =>
  seconds < 120 ? `${seconds} seconds` : `${Math.ceil(seconds / 60)} minutes`;

/** What the account pages share: the services, and the answers more than one page gives. */
export type AccountPageKit = ReturnType<typeof accountPageKit>;

export interface AccountView {
  tab: 'profile' | 'development';
  status?: number;
  error?: string;
  notice?: string;
  newKey?: { secret: string; name: string };
}

export function accountPageKit(app: FastifyInstance, services: ApiServices) {
  const { db, config } = services;
  const settings = accountSettingsFromConfig(config);
  const credentials = app.emutrackEdge.credentials;
  const panels = app.accountPanels;

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

  /** The account page of a signed-in browser. */
  const accountPage = async (
    request: FastifyRequest,
    reply: FastifyReply,
    signedIn: SignedInBrowser,
    view: AccountView,
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

  return {
    db,
    config,
    settings,
    credentials,
    refuseForgery,
    signInPage,
    accountPage,
    requireSignIn,
  };
}
