import { DEVELOPMENT_TAB, listField, panelFormAction } from './panel-form-action.js';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AccountPanel } from './account-panels.js';
import type { Config } from '../../shared/config/config.js';
import type { Db } from '../../shared/db/db.js';
import { findEmuId } from '../../domain/emus/emu-registry.js';
import { MalformedTrainCodeError, normalizeTrainCode } from '../../domain/trains/train-code.js';
import {
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  listWebhookEndpoints,
  recentWebhookDeliveries,
  rotateWebhookSecret,
  WEBHOOK_EVENTS,
  type WebhookOwner,
} from '../../domain/webhooks/webhook-endpoints.js';
import { WebhookError } from '../../domain/webhooks/webhook-error.js';
import { hiddenCsrf, html, type Html } from '../html/html.js';
import type { ApiApp } from '../app-context.js';
import { csrfToken } from '../session/web-session.js';
import { answerSwitches, personalView, sendPersonalPage } from '../web/personal-page.js';
import { formBody } from '../html/form-body.js';
import { reflowTable } from '../html/reflow-table.js';

const PANEL_ID = 'webhooks';
const BACK = `${DEVELOPMENT_TAB}#${PANEL_ID}`;
/** What separates the trains and units written in the form's text fields. */
const COMMAS_OR_SPACES = /[,\s]+/;

const when = (d: Date | null) => (d ? d.toISOString().slice(0, 16).replace('T', ' ') : '');

/** The endpoints the signed-in user registered with a session or a key (not those of apps). */
const ownerOf = (userId: string): WebhookOwner => ({ userId, oauthClientId: null });

/**
 * The Webhooks panel of the account page's Development tab: the user's endpoints with their
 * health (why one was disabled, the last deliveries), a form to register one, and buttons to
 * rotate a secret or delete an endpoint. Its forms post to /account/webhooks/... (session and
 * CSRF checked); a new secret is shown on the page that answers the post, once.
 */
export function webhooksAccountPanel(db: Db): AccountPanel {
  return {
    id: PANEL_ID,
    title: (t) => t.webhooks,
    async render({ signedIn, csrfToken: token, request, t }) {
      const owner = ownerOf(signedIn.user.userId);
      const endpoints = await listWebhookEndpoints(db, owner);
      const query = request.query as Record<string, unknown> | undefined;
      const problem =
        typeof query?.webhook_error === 'string' ? query.webhook_error.slice(0, 300) : '';
      const rows: Html[] = [];
      for (const e of endpoints) {
        const recent = await recentWebhookDeliveries(db, owner, e.id, 5);
        rows.push(
          html`<tr>
            <th scope="row" data-label="${t.endpoint}">
              <code>${e.url}</code><br /><span class="muted">${e.id}</span>
              ${e.trains.length > 0 ? html`<div>${t.followedTrains(e.trains.join(', '))}</div>` : ''}
              ${e.emuIds.length > 0 ? html`<div>${t.followedUnits(e.emuIds.length)}</div>` : ''}
            </th>
            <td data-label="${t.events}">
              ${e.events.map((ev) => html`<div><code>${ev}</code></div>`)}
            </td>
            <td data-label="${t.health}">
              ${
                e.disabledAt
                  ? html`<strong>${t.webhookDisabled}</strong> ${when(e.disabledAt)}:
                      ${e.disabledReason}`
                  : e.failingSince
                    ? html`<strong>${t.webhookFailingSince}</strong> ${when(e.failingSince)}:
                        ${e.lastError}`
                    : html`${t.webhookActive}${e.lastSuccessAt ? html`, ${t.webhookLastDelivered(when(e.lastSuccessAt))}` : ''}`
              }
              ${recent.map(
                (d) =>
                  html`<div class="muted">
                    ${when(d.createdAt)} ${d.eventType}:
                    ${
                      d.deliveredAt
                        ? t.deliveryDelivered
                        : d.failedAt
                          ? html`${t.deliveryGivenUp} (${d.lastError})`
                          : html`${t.deliveryAttempts(d.attempts)}${d.lastError ? html`, ${d.lastError}` : ''}`
                    }
                  </div>`,
              )}
            </td>
            <td data-label="${t.actions}">
              <form method="post" action="/account/webhooks/${e.id}/rotate-secret">
                ${hiddenCsrf(token)}<button type="submit" class="secondary">${t.newSecret}</button>
              </form>
              <form method="post" action="/account/webhooks/${e.id}/delete">
                ${hiddenCsrf(token)}<button type="submit" class="danger">${t.deleteButton}</button>
              </form>
            </td>
          </tr>`,
        );
      }
      return html`${problem ? html`<p class="error" role="alert">${problem}</p>` : ''}
        <p>${t.webhooksIntro}</p>
        ${reflowTable({
          className: 'webhooks',
          columns: [t.endpoint, t.events, t.health, t.actions],
          rows,
          empty: t.noWebhooks,
        })}
        <form method="post" action="/account/webhooks" class="stacked webhook-form">
          ${hiddenCsrf(token)}
          <label for="webhook-url">${t.webhookUrl}</label>
          <input type="text" id="webhook-url" name="url" required maxlength="2000" />
          <fieldset class="scopes">
            <legend>${t.events}</legend>
            ${WEBHOOK_EVENTS.map(
              (ev) =>
                html`<label class="check"
                  ><input type="checkbox" name="events" value="${ev}" /> <code>${ev}</code></label
                >`,
            )}
          </fieldset>
          <label for="webhook-trains">${t.followTrains}</label>
          <input type="text" id="webhook-trains" name="trains" maxlength="2000" />
          <label for="webhook-emus">${t.followUnits}</label>
          <input type="text" id="webhook-emus" name="emus" maxlength="4000" />
          <button type="submit">${t.addWebhook}</button>
        </form>`.text;
    },
  };
}

/** The page that shows a new secret, once. */
function secretPage(
  request: FastifyRequest,
  reply: FastifyReply,
  username: string,
  url: string,
  secret: string,
): FastifyReply {
  const view = personalView(request, BACK);
  const { t } = view;
  return sendPersonalPage(request, reply, 200, view, {
    title: t.webhookSecretTitle,
    heading: html`${t.webhookSecretHeading}`,
    section: 'account',
    signedIn: { username, csrfToken: csrfToken(request, reply) },
    body: html`<div class="card">
      <p>${t.webhookSecretFor} <code>${url}</code>. ${t.webhookSecretOnce}</p>
      <p class="newkey">
        <input type="text" readonly value="${secret}" aria-label="${t.webhookSecretLabel}" />
      </p>
      <p><a href="${BACK}">${t.backToAccount}</a></p>
    </div>`,
  });
}

/** The panel's form targets: session and CSRF checked, then act and answer or come back. */
export async function registerWebhookAccountForms(
  app: ApiApp,
  db: Db,
  config: Config,
): Promise<void> {
  await app.register(async (scope) => {
    await formBody(scope);
    scope.addHook('preHandler', answerSwitches);
    const act = (
      handler: (
        request: FastifyRequest,
        reply: FastifyReply,
        owner: WebhookOwner,
        username: string,
      ) => Promise<FastifyReply | undefined>,
    ) =>
      panelFormAction(
        {
          panelId: PANEL_ID,
          errorParam: 'webhook_error',
          isRefusal: (err): err is Error => err instanceof WebhookError,
        },
        (request, reply, browser) =>
          handler(request, reply, ownerOf(browser.user.userId), browser.user.username),
      );
    const opts = { schema: { hide: true }, bodyLimit: 32 * 1024 };
    scope.post(
      '/account/webhooks',
      opts,
      act(async (request, reply, owner, username) => {
        const form = request.body as Record<string, unknown>;
        const trains = listField(form.trains, COMMAS_OR_SPACES).map((t) => {
          try {
            return normalizeTrainCode(t);
          } catch (err) {
            if (err instanceof MalformedTrainCodeError)
              throw new WebhookError('webhook_invalid_filter', `trains: ${err.message}`, 'trains');
            throw err;
          }
        });
        const emuIds: number[] = [];
        for (const written of listField(form.emus, COMMAS_OR_SPACES)) {
          const id = await findEmuId(db, written);
          if (id === undefined)
            throw new WebhookError(
              'webhook_invalid_filter',
              `emus: no EMU is known as ${JSON.stringify(written.slice(0, 40))}`,
              'emus',
            );
          emuIds.push(id);
        }
        const { endpoint, secret } = await createWebhookEndpoint(
          db,
          owner,
          {
            url: typeof form.url === 'string' ? form.url.trim() : '',
            events: listField(form.events),
            trains,
            emuIds,
          },
          {
            allowLoopback: config.WEBHOOK_ALLOW_LOOPBACK,
            maxEndpoints: config.WEBHOOK_MAX_ENDPOINTS_PER_USER,
          },
        );
        return secretPage(request, reply, username, endpoint.url, secret);
      }),
    );
    scope.post<{ Params: { id: string } }>(
      '/account/webhooks/:id/rotate-secret',
      opts,
      act(async (request, reply, owner, username) => {
        const { id } = request.params as { id: string };
        const { endpoint, secret } = await rotateWebhookSecret(
          db,
          owner,
          id,
          config.WEBHOOK_SECRET_OVERLAP_SECONDS,
        );
        return secretPage(request, reply, username, endpoint.url, secret);
      }),
    );
    scope.post<{ Params: { id: string } }>(
      '/account/webhooks/:id/delete',
      opts,
      act(async (request, _reply, owner) => {
        await deleteWebhookEndpoint(db, owner, (request.params as { id: string }).id);
        return undefined;
      }),
    );
  });
}
