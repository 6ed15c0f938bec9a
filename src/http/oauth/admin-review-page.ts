import type { ApiApp } from '../app-context.js';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { scopeInfo } from '../../domain/accounts/scopes.js';
import { isEmutrackError } from '../../shared/errors/emutrack-error.js';
import type { OAuthClient } from '../../domain/oauth/client-records.js';
import {
  listClientsForReview,
  reviewClient,
  revokeAllClientTokens,
} from '../../domain/oauth/client-review.js';
import {
  csrfToken,
  csrfValid,
  loginUrl,
  signedInBrowser,
  type SignedInBrowser,
} from '../session/web-session.js';
import { hiddenCsrf, html, type Html } from '../html/html.js';
import type { Messages } from '../web/i18n/messages-en.js';
import { answerSwitches, personalView, sendPersonalPage } from '../web/personal-page.js';
import type { OAuthEdge } from './oauth-edge.js';
import { formBody } from '../html/form-body.js';
import { reflowTable } from '../html/reflow-table.js';

export const ADMIN_REVIEW_PATH = '/admin/oauth/clients';

/**
 * A page of the review (no-store: it carries the administrator's CSRF token; CSP and frame
 * refusal are the app's security headers). A form's answer comes back to the review's address.
 */
function sendReviewPage(
  request: FastifyRequest,
  reply: FastifyReply,
  status: number,
  page: (t: Messages) => { title: string; heading?: string; body: Html },
  signedIn?: SignedInBrowser,
): FastifyReply {
  const view = personalView(request, request.method === 'GET' ? undefined : ADMIN_REVIEW_PATH);
  const { title, heading, body } = page(view.t);
  return sendPersonalPage(request, reply, status, view, {
    title,
    heading: heading === undefined ? undefined : html`${heading}`,
    body,
    signedIn: signedIn && {
      username: signedIn.user.username,
      csrfToken: csrfToken(request, reply),
    },
  });
}

function clientSection(t: Messages, client: OAuthClient, csrf: string) {
  const token = hiddenCsrf(csrf);
  const base = `${ADMIN_REVIEW_PATH}/${encodeURIComponent(client.clientId)}`;
  return html`<section class="client" id="${client.clientId}">
    <h2>
      ${client.name} <span class="muted">${t.byOwner(client.ownerUsername)}</span>${
        client.status === 'disabled' ? html` <span class="warn">${t.reviewDisabled}</span>` : ''
      }
    </h2>
    <p class="muted">
      <code>${client.clientId}</code>,
      ${t.reviewRegistered(client.createdAt.toISOString().slice(0, 10))}${
        client.homepageUrl
          ? html`, ${t.reviewHomepage}
              <a href="${client.homepageUrl}" rel="noopener noreferrer">${client.homepageUrl}</a>`
          : ''
      }
    </p>
    ${client.description ? html`<p>${client.description}</p>` : ''}
    <p>${t.redirectUris}: ${client.redirectUris.map((u) => html`<code>${u}</code> `)}</p>
    <form method="post" action="${base}/review">
      ${token}
      ${reflowTable({
        columns: [t.scope, t.status, t.decision],
        rows: client.scopes.map(
          (s) =>
            html`<tr>
              <th scope="row" data-label="${t.scope}">
                <code>${s.scope}</code><br /><span class="muted"
                  >${scopeInfo(s.scope)?.description ?? ''}</span
                >
              </th>
              <td data-label="${t.status}">
                ${s.status}${s.reviewedAt ? html`<br /><span class="muted">${s.reviewedByUsername ?? 'CLI'}, ${s.reviewedAt.toISOString().slice(0, 16).replace('T', ' ')}</span>` : ''}
              </td>
              <td data-label="${t.decision}">
                <label class="check"
                  ><input type="radio" name="scope:${s.scope}" value="approved" />
                  ${t.approve}</label
                >
                <label class="check"
                  ><input type="radio" name="scope:${s.scope}" value="rejected" />
                  ${t.reject}</label
                >
              </td>
            </tr>`,
        ),
      })}
      <div class="buttons"><button type="submit">${t.saveDecisions}</button></div>
    </form>
    <div class="buttons">
      <form method="post" action="${base}/status">
        ${token}<input
          type="hidden"
          name="status"
          value="${client.status === 'active' ? 'disabled' : 'active'}"
        /><button type="submit" class="secondary">
          ${client.status === 'active' ? t.disableClient : t.enableClient}
        </button>
      </form>
      <form method="post" action="${base}/revoke-tokens">
        ${token}<button type="submit" class="danger">${t.revokeAllTokens}</button>
      </form>
    </div>
  </section>`;
}

/**
 * The administrators' review page (/admin/oauth/clients): clients waiting for review (or all,
 * ?status=all), each with its scopes to approve or reject, and buttons to disable it or revoke
 * its tokens. The forms post back here (CSRF-checked) and return to the page (303).
 */
export async function registerAdminReviewPage(app: ApiApp, edge: OAuthEdge): Promise<void> {
  /** The signed-in administrator, or the answer already sent (sign in first / forbidden). */
  const admin = async (
    request: FastifyRequest,
    reply: FastifyReply,
  ): Promise<SignedInBrowser | undefined> => {
    const browser = await signedInBrowser(request);
    if (!browser) {
      await reply.redirect(loginUrl(request.url), 303);
      return undefined;
    }
    if (browser.user.role !== 'admin') {
      await sendReviewPage(request, reply, 403, (t) => ({
        title: t.forbiddenTitle,
        heading: t.administratorsOnly,
        body: html``,
      }));
      return undefined;
    }
    return browser;
  };

  await app.register(async (scope) => {
    await formBody(scope);
    scope.addHook('preHandler', answerSwitches);

    scope.get(ADMIN_REVIEW_PATH, { schema: { hide: true } }, async (request, reply) => {
      const browser = await admin(request, reply);
      if (!browser) return reply;
      const all = (request.query as Record<string, unknown>).status === 'all';
      const clients = await listClientsForReview(edge.db, { filter: all ? 'all' : 'pending' });
      const csrf = csrfToken(request, reply);
      return sendReviewPage(
        request,
        reply,
        200,
        (t) => ({
          title: t.reviewTitle,
          heading: all ? t.reviewHeadingAll : t.reviewHeadingPending,
          body: html`<p class="muted">
              ${
                all
                  ? html`${t.reviewAll} <a href="${ADMIN_REVIEW_PATH}">${t.reviewOnlyPending}</a>.`
                  : html`${t.reviewPendingIntro}
                      <a href="${ADMIN_REVIEW_PATH}?status=all">${t.reviewShowAll}</a>.`
              }
            </p>
            ${clients.length === 0 ? html`<p>${t.reviewNothing}</p>` : clients.map((c) => clientSection(t, c, csrf))}`,
        }),
        browser,
      );
    });

    const act =
      (handler: (request: FastifyRequest, adminId: string, clientId: string) => Promise<void>) =>
      async (request: FastifyRequest, reply: FastifyReply) => {
        const browser = await admin(request, reply);
        if (!browser) return reply;
        if (!csrfValid(request, request.body as Record<string, unknown>))
          return sendReviewPage(request, reply, 403, (t) => ({
            title: t.formExpiredTitle,
            heading: t.formExpiredHeading,
            body: html`<p><a href="${ADMIN_REVIEW_PATH}">${t.reload}</a>.</p>`,
          }));
        const { clientId } = request.params as { clientId: string };
        try {
          await handler(request, browser.user.userId, clientId);
        } catch (err) {
          if (isEmutrackError(err, 'oauth_invalid_input', 'oauth_client_not_found'))
            return sendReviewPage(request, reply, 400, (t) => ({
              title: t.refused,
              body: html`<p>${err.message}</p>
                <p><a href="${ADMIN_REVIEW_PATH}">${t.back}</a></p>`,
            }));
          throw err;
        }
        return reply.redirect(
          `${ADMIN_REVIEW_PATH}?status=all#${encodeURIComponent(clientId)}`,
          303,
        );
      };
    const opts = { schema: { hide: true }, bodyLimit: 32 * 1024 };

    scope.post(
      `${ADMIN_REVIEW_PATH}/:clientId/review`,
      opts,
      act(async (request, adminId, clientId) => {
        const form = request.body as Record<string, unknown>;
        const scopes: Record<string, 'approved' | 'rejected'> = {};
        for (const [name, value] of Object.entries(form)) {
          if (name.startsWith('scope:') && (value === 'approved' || value === 'rejected'))
            scopes[name.slice('scope:'.length)] = value;
        }
        const { withdrawn } = await reviewClient(
          edge.db,
          clientId,
          { scopes },
          adminId,
          edge.now(),
        );
        if (withdrawn.tokens > 0) edge.credentialsChanged(request);
      }),
    );
    scope.post(
      `${ADMIN_REVIEW_PATH}/:clientId/status`,
      opts,
      act(async (request, adminId, clientId) => {
        const status =
          (request.body as Record<string, unknown>).status === 'active' ? 'active' : 'disabled';
        await reviewClient(edge.db, clientId, { status }, adminId, edge.now());
        edge.credentialsChanged(request);
      }),
    );
    scope.post(
      `${ADMIN_REVIEW_PATH}/:clientId/revoke-tokens`,
      opts,
      act(async (request, _adminId, clientId) => {
        await revokeAllClientTokens(edge.db, clientId, edge.now());
        edge.credentialsChanged(request);
      }),
    );
  });
}
