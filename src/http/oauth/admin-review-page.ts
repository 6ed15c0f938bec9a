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
import { hiddenCsrf, html, page } from '../html/html.js';
import type { OAuthEdge } from './oauth-edge.js';
import { formBody } from '../html/form-body.js';

export const ADMIN_REVIEW_PATH = '/admin/oauth/clients';

function pageHeaders(reply: FastifyReply): FastifyReply {
  // CSP and frame refusal: the app's security headers (src/http/security-headers.ts).
  return reply.header('cache-control', 'no-store').type('text/html; charset=utf-8');
}

function clientSection(client: OAuthClient, csrf: string) {
  const token = hiddenCsrf(csrf);
  const base = `${ADMIN_REVIEW_PATH}/${encodeURIComponent(client.clientId)}`;
  return html`<section class="client" id="${client.clientId}">
    <h2>
      ${client.name} <span class="muted">by ${client.ownerUsername}</span>${
        client.status === 'disabled' ? html` <span class="warn">(disabled)</span>` : ''
      }
    </h2>
    <p class="muted">
      <code>${client.clientId}</code>, registered
      ${client.createdAt.toISOString().slice(0, 10)}${
        client.homepageUrl
          ? html`, homepage
              <a href="${client.homepageUrl}" rel="noopener noreferrer">${client.homepageUrl}</a>`
          : ''
      }
    </p>
    ${client.description ? html`<p>${client.description}</p>` : ''}
    <p>Redirect URIs: ${client.redirectUris.map((u) => html`<code>${u}</code> `)}</p>
    <form method="post" action="${base}/review">
      ${token}
      <table>
        <tr>
          <th>Scope</th>
          <th>Status</th>
          <th>Decision</th>
        </tr>
        ${client.scopes.map(
          (s) =>
            html`<tr>
              <td>
                <code>${s.scope}</code><br /><span class="muted"
                  >${scopeInfo(s.scope)?.description ?? ''}</span
                >
              </td>
              <td>
                ${s.status}${s.reviewedAt ? html`<br /><span class="muted">${s.reviewedByUsername ?? 'CLI'}, ${s.reviewedAt.toISOString().slice(0, 16).replace('T', ' ')}</span>` : ''}
              </td>
              <td>
                <label
                  ><input type="radio" name="scope:${s.scope}" value="approved" /> approve</label
                >
                <label
                  ><input type="radio" name="scope:${s.scope}" value="rejected" /> reject</label
                >
              </td>
            </tr>`,
        )}
      </table>
      <div class="buttons"><button type="submit" class="primary">Save decisions</button></div>
    </form>
    <div class="buttons">
      <form method="post" action="${base}/status">
        ${token}<input
          type="hidden"
          name="status"
          value="${client.status === 'active' ? 'disabled' : 'active'}"
        /><button type="submit">
          ${client.status === 'active' ? 'Disable (revokes its tokens)' : 'Enable'}
        </button>
      </form>
      <form method="post" action="${base}/revoke-tokens">
        ${token}<button type="submit">Revoke all its tokens</button>
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
      await pageHeaders(reply)
        .code(403)
        .send(page('Forbidden', html`<h1>Administrators only</h1>`));
      return undefined;
    }
    return browser;
  };

  await app.register(async (scope) => {
    await formBody(scope);

    scope.get(ADMIN_REVIEW_PATH, { schema: { hide: true } }, async (request, reply) => {
      if (!(await admin(request, reply))) return reply;
      const all = (request.query as Record<string, unknown>).status === 'all';
      const clients = await listClientsForReview(edge.db, { filter: all ? 'all' : 'pending' });
      const csrf = csrfToken(request, reply);
      const body = html`<h1>OAuth clients ${all ? '' : 'waiting for review'}</h1>
        <p class="muted">
          ${
            all
              ? html`All clients. <a href="${ADMIN_REVIEW_PATH}">Only those waiting for review</a>.`
              : html`Clients with a scope pending review, oldest first.
                  <a href="${ADMIN_REVIEW_PATH}?status=all">All clients</a>.`
          }
        </p>
        ${clients.length === 0 ? html`<p>Nothing to review.</p>` : clients.map((c) => clientSection(c, csrf))}`;
      return pageHeaders(reply).send(page('OAuth client review', body, true));
    });

    const act =
      (handler: (request: FastifyRequest, adminId: string, clientId: string) => Promise<void>) =>
      async (request: FastifyRequest, reply: FastifyReply) => {
        const browser = await admin(request, reply);
        if (!browser) return reply;
        if (!csrfValid(request, request.body as Record<string, unknown>))
          return pageHeaders(reply)
            .code(403)
            .send(
              page(
                'Expired',
                html`<h1>This form has expired</h1>
                  <p><a href="${ADMIN_REVIEW_PATH}">Reload</a>.</p>`,
              ),
            );
        const { clientId } = request.params as { clientId: string };
        try {
          await handler(request, browser.user.userId, clientId);
        } catch (err) {
          if (isEmutrackError(err, 'oauth_invalid_input', 'oauth_client_not_found'))
            return pageHeaders(reply)
              .code(400)
              .send(
                page(
                  'Refused',
                  html`<h1>Refused</h1>
                    <p>${err.message}</p>
                    <p><a href="${ADMIN_REVIEW_PATH}">Back</a></p>`,
                ),
              );
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
