import type { Role } from '../../domain/accounts/scopes.js';
import { listField, panelFormAction } from './panel-form-action.js';
import type { ApiApp } from '../app-context.js';
import type { FastifyRequest } from 'fastify';
import type { AccountPanel } from './account-panels.js';
import { isAppRequestableScope, SCOPE_CATALOGUE } from '../../domain/accounts/scopes.js';
import { isEmutrackError } from '../../shared/errors/emutrack-error.js';
import { listAuthorizations, revokeAuthorization } from '../../domain/oauth/authorizations.js';
import { createClient, deleteOwnClient, listOwnClients } from '../../domain/oauth/clients.js';
import { hiddenCsrf, html } from '../html/html.js';
import type { OAuthEdge } from '../oauth/oauth-edge.js';
import { formBody } from '../html/form-body.js';
import { reflowTable } from '../html/reflow-table.js';

/** Where the account page shows this panel. */
const PANEL_ID = 'oauth-clients';

const when = (d: Date) => d.toISOString().slice(0, 16).replace('T', ' ');

/**
 * The OAuth panels of the account page's Development tab: the user's clients (with a form to
 * register one, and delete buttons) and the apps the user has authorized (with revoke buttons).
 * Its forms post to /account/oauth/... (CSRF-checked), which act and come back to the panel.
 */
export function oauthAccountPanels(edge: OAuthEdge): AccountPanel[] {
  const clients: AccountPanel = {
    id: PANEL_ID,
    title: (t) => t.oauthClients,
    async render({ signedIn, csrfToken, request, t }) {
      const own = await listOwnClients(edge.db, signedIn.user.userId);
      const query = request.query as Record<string, unknown> | undefined;
      const problem = typeof query?.oauth_error === 'string' ? query.oauth_error.slice(0, 300) : '';
      const rows = own.map(
        (c) =>
          html`<tr>
            <th scope="row" data-label="${t.clientColumn}">
              <strong>${c.name}</strong
              >${c.status === 'disabled' ? html` <em>${t.clientDisabled}</em>` : ''}<br />
              <code class="client-id">${c.clientId}</code>
            </th>
            <td data-label="${t.redirectUris}">
              ${c.redirectUris.map((u) => html`<div><code>${u}</code></div>`)}
            </td>
            <td data-label="${t.scopes}">
              ${c.scopes.map((s) => html`<div><code>${s.scope}</code>: ${s.status}</div>`)}
            </td>
            <td data-label="${t.actions}">
              <form
                method="post"
                action="/account/oauth/clients/${encodeURIComponent(c.clientId)}/delete"
              >
                ${hiddenCsrf(csrfToken)}<button type="submit" class="danger">
                  ${t.deleteButton}
                </button>
              </form>
            </td>
          </tr>`,
      );
      return html`${problem ? html`<p class="error" role="alert">${problem}</p>` : ''}
        <p>
          ${t.oauthClientsIntro} ${t.oauthDiscovery}
          <code>${edge.issuer}/.well-known/openid-configuration</code>.
        </p>
        ${reflowTable({
          className: 'oauth-clients',
          columns: [t.clientColumn, t.redirectUris, t.scopes, t.actions],
          rows,
          empty: t.noOAuthClients,
        })}
        <form method="post" action="/account/oauth/clients" class="stacked oauth-client-form">
          ${hiddenCsrf(csrfToken)}
          <label for="client-name">${t.clientName}</label>
          <input id="client-name" name="name" required maxlength="100" />
          <label for="client-redirects">${t.redirectUrisOnePerLine}</label>
          <textarea id="client-redirects" name="redirectUris" rows="3" required></textarea>
          <fieldset class="scopes">
            <legend>${t.requestedScopes}</legend>
            ${SCOPE_CATALOGUE.filter((s) => isAppRequestableScope(s.name)).map(
              (s) =>
                html`<label class="check"
                  ><input type="checkbox" name="requestedScopes" value="${s.name}" />
                  <span><code>${s.name}</code>: ${s.description}</span></label
                >`,
            )}
          </fieldset>
          <label for="client-description">${t.clientDescription}</label>
          <input id="client-description" name="description" maxlength="1000" />
          <label for="client-homepage">${t.clientHomepage}</label>
          <input id="client-homepage" name="homepageUrl" type="url" />
          <button type="submit">${t.registerClient}</button>
        </form>`.text;
    },
  };
  const authorized: AccountPanel = {
    id: 'oauth-authorizations',
    title: (t) => t.authorizedApps,
    async render({ signedIn, csrfToken, t }) {
      const apps = await listAuthorizations(edge.db, signedIn.user.userId, edge.now());
      if (apps.length === 0) return html`<p>${t.noAuthorizedApps}</p>`.text;
      return reflowTable({
        className: 'oauth-authorizations',
        columns: [t.appColumn, t.scopes, t.authorizedColumn, t.actions],
        rows: apps.map(
          (a) =>
            html`<tr>
              <th scope="row" data-label="${t.appColumn}">
                <strong>${a.name}</strong>
                <span class="muted">${t.byOwner(a.ownerUsername)}</span>
              </th>
              <td data-label="${t.scopes}">
                ${a.scopes.map((s) => html`<div><code>${s}</code></div>`)}
              </td>
              <td data-label="${t.authorizedColumn}">${when(a.authorizedAt)}</td>
              <td data-label="${t.actions}">
                <form
                  method="post"
                  action="/account/oauth/authorizations/${encodeURIComponent(a.clientId)}/revoke"
                >
                  ${hiddenCsrf(csrfToken)}<button type="submit" class="danger">${t.revoke}</button>
                </form>
              </td>
            </tr>`,
        ),
      }).text;
    },
  };
  return [clients, authorized];
}

/**
 * The panel's form targets. Each checks the web session and the CSRF token, acts, and comes
 * back to the panel (303); a refusal comes back with its message.
 */
export async function registerAccountOAuthForms(app: ApiApp, edge: OAuthEdge): Promise<void> {
  await app.register(async (scope) => {
    await formBody(scope);
    const refusals = {
      panelId: PANEL_ID,
      errorParam: 'oauth_error',
      isRefusal: (err: unknown): err is Error =>
        isEmutrackError(err, 'oauth_invalid_input', 'oauth_client_not_found'),
    };
    const act = (handler: (request: FastifyRequest, userId: string, role: Role) => Promise<void>) =>
      panelFormAction(refusals, async (request, _reply, browser) => {
        await handler(request, browser.user.userId, browser.user.role);
        return undefined;
      });
    const opts = { schema: { hide: true }, bodyLimit: 32 * 1024 };
    scope.post(
      '/account/oauth/clients',
      opts,
      act(async (request, userId, role) => {
        const form = request.body as Record<string, unknown>;
        await createClient(
          edge.db,
          { userId, role },
          {
            name: typeof form.name === 'string' ? form.name : '',
            redirectUris: listField(form.redirectUris, /\r?\n/),
            requestedScopes: listField(form.requestedScopes),
            description: typeof form.description === 'string' ? form.description : null,
            homepageUrl: typeof form.homepageUrl === 'string' ? form.homepageUrl : null,
          },
          edge.now(),
        );
      }),
    );
    // Both revoke tokens (every one of a deleted client, the user's of a revoked app), so the
    // credential cache is told.
    for (const [url, withdraw] of [
      ['/account/oauth/clients/:clientId/delete', deleteOwnClient],
      ['/account/oauth/authorizations/:clientId/revoke', revokeAuthorization],
    ] as const) {
      scope.post(
        url,
        opts,
        act(async (request, userId) => {
          const { clientId } = request.params as { clientId: string };
          await withdraw(edge.db, userId, clientId, edge.now());
          edge.credentialsChanged(request);
        }),
      );
    }
  });
}
