import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { listCredentials } from '../../domain/accounts/credentials.js';
import { scopesOfRole } from '../../domain/accounts/scopes.js';
import { accountSettingsFromConfig } from '../../domain/accounts/account-settings.js';
import type { ApiServices } from '../app-context.js';
import type { Messages } from '../web/i18n/messages-en.js';
import {
  csrfToken,
  loginUrl,
  signedInBrowser,
  type SignedInBrowser,
} from '../session/web-session.js';
import { html } from '../html/html.js';
import { personalView, sendPersonalPage } from '../web/personal-page.js';
import { developmentTab, profileTab, signInForm, tabs } from './account-page-views.js';

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

/** What the account pages share: the services, and the answers more than one page gives. */
export type AccountPageKit = ReturnType<typeof accountPageKit>;

/** A message of the page, in the reader's words. */
export type Said = (t: Messages) => string;

export interface AccountView {
  tab: 'profile' | 'development';
  status?: number;
  error?: Said;
  notice?: Said;
  newKey?: { secret: string; name: string };
}

export function accountPageKit(app: FastifyInstance, services: ApiServices) {
  const { db, config } = services;
  const settings = accountSettingsFromConfig(config);
  const credentials = app.emutrackEdge.credentials;
  const panels = app.accountPanels;

  /** 403 for a post without this browser's CSRF token (an old tab, or another site's form). */
  const refuseForgery = (request: FastifyRequest, reply: FastifyReply) => {
    const again = request.url.startsWith('/account') ? '/account' : '/login';
    const view = personalView(request, again);
    const { t } = view;
    return sendPersonalPage(request, reply, 403, view, {
      title: t.formExpiredTitle,
      heading: html`${t.formExpiredHeading}`,
      body: html`<p>${t.formExpiredText} <a href="${again}">${t.formExpiredReload}</a>.</p>`,
    });
  };

  const signInPage = (
    request: FastifyRequest,
    reply: FastifyReply,
    mode: 'login' | 'register',
    status: number,
    extra: { next: string; username?: string; error?: Said },
  ) => {
    // A post's answer comes back to the form (its `next` kept) when the language is switched.
    const view = personalView(request, `/${mode}?next=${encodeURIComponent(extra.next)}`);
    const { t } = view;
    return sendPersonalPage(request, reply, status, view, {
      title: mode === 'login' ? t.signInTitle : t.registerHeading,
      section: 'account',
      body: signInForm(t, {
        mode,
        csrfToken: csrfToken(request, reply),
        ...extra,
        error: extra.error?.(t),
      }),
    });
  };

  /** The account page of a signed-in browser. */
  const accountPage = async (
    request: FastifyRequest,
    reply: FastifyReply,
    signedIn: SignedInBrowser,
    view: AccountView,
  ) => {
    const token = csrfToken(request, reply);
    const { user, session } = signedIn;
    const here = `/account?tab=${view.tab}`;
    const page = personalView(request, request.method === 'GET' ? undefined : here);
    const { t } = page;
    const said = { error: view.error?.(t), notice: view.notice?.(t) };
    let body;
    if (view.tab === 'profile') {
      body = profileTab(t, { user, csrfToken: token, ...said });
    } else {
      const list = await listCredentials(db, user.userId, { includeInactive: true });
      const extra = [];
      for (const panel of panels.list()) {
        extra.push({
          id: panel.id,
          title: typeof panel.title === 'string' ? panel.title : panel.title(t),
          html: await panel.render({ request, signedIn, csrfToken: token, t }),
        });
      }
      body = developmentTab(t, {
        credentials: list,
        currentRevokeId: session.revokeId,
        creatableScopes: scopesOfRole(user.role),
        defaultLifetimeDays: config.API_KEY_DEFAULT_LIFETIME_DAYS,
        csrfToken: token,
        ...said,
        newKey: view.newKey,
        panels: extra,
      });
    }
    return sendPersonalPage(request, reply, view.status ?? 200, page, {
      title: t.accountTitle,
      section: 'account',
      signedIn: { username: user.username, csrfToken: token },
      body: html`${tabs(t, view.tab)}${body}`,
    });
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
