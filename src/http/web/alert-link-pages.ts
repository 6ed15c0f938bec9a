import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { alertPagePath } from '../../domain/alerts/alert-channels.js';
import {
  subscriptionOfUnsubscribeToken,
  unsubscribe,
  verifySubscription,
} from '../../domain/alerts/subscriptions.js';
import { hashToken } from '../../domain/alerts/subscriptions.js';
import type { Db } from '../../shared/db/db.js';
import { formBody } from '../html/form-body.js';
import { html, type Html } from '../html/html.js';
import type { Messages } from './i18n/messages-en.js';
import { answerSwitches, personalView, sendPersonalPage } from './personal-page.js';

/** Pages for people, not API operations: out of the OpenAPI document. */
const HIDDEN = { schema: { hide: true } };

const TOKEN = /^[A-Za-z0-9_-]{20,64}$/;

/**
 * A page of the web app's frame in the reader's language (these links are opened from a mail,
 * signed in or not, so no one's name or form token is on it).
 */
function page(
  request: FastifyRequest,
  reply: FastifyReply,
  status: number,
  content: (t: Messages) => { title: string; body: Html },
): FastifyReply {
  const view = personalView(request, request.url.split('?')[0]);
  const { title, body } = content(view.t);
  // The token is in the path: no cache keeps it (no-store), no referrer carries it.
  reply.header('referrer-policy', 'no-referrer').header('x-robots-tag', 'noindex');
  return sendPersonalPage(request, reply, status, view, { title, body });
}

const unknownLink = (request: FastifyRequest, reply: FastifyReply) =>
  page(request, reply, 404, (t) => ({
    title: t.alertLinkInvalidTitle,
    body: html`<p>${t.alertLinkInvalid}</p>`,
  }));

/**
 * The links of alert mails, which work without signing in: the token in the path is the
 * credential (only the mail's reader has it, the server keeps its hash), so the forms carry no
 * session CSRF token. GET only shows a confirmation (mail scanners open links); POST acts, and
 * a mail client's one-click unsubscribe (RFC 8058: POST with List-Unsubscribe=One-Click) is
 * that POST.
 */
export async function registerAlertLinkPages(app: FastifyInstance, db: Db): Promise<void> {
  await app.register(async (scope) => {
    await formBody(scope);
    scope.addHook('preHandler', answerSwitches);
    scope.get<{ Params: { token: string } }>(
      '/alerts/verify/:token',
      HIDDEN,
      async (request, reply) => {
        const { token } = request.params;
        if (!TOKEN.test(token)) return unknownLink(request, reply);
        const known = await db.query(
          `SELECT 1 FROM alert_subscriptions WHERE verification_token_hash = $1`,
          [hashToken(token)],
        );
        if (known.rowCount === 0) return unknownLink(request, reply);
        return page(request, reply, 200, (t) => ({
          title: t.alertVerifyTitle,
          body: html`<p>${t.alertVerifyQuestion}</p>
            <form method="post"><button type="submit">${t.alertVerifyConfirm}</button></form>`,
        }));
      },
    );
    scope.post<{ Params: { token: string } }>(
      '/alerts/verify/:token',
      HIDDEN,
      async (request, reply) => {
        const { token } = request.params;
        const s = TOKEN.test(token) ? await verifySubscription(db, token) : undefined;
        if (!s) return unknownLink(request, reply);
        return page(request, reply, 200, (t) => ({
          title: t.alertVerifiedTitle,
          body: html`<p class="notice" role="status">${t.alertVerified(s.code, s.target)}</p>
            <p><a href="${alertPagePath(s)}">${s.code}</a></p>`,
        }));
      },
    );
    scope.get<{ Params: { token: string } }>(
      '/alerts/unsubscribe/:token',
      HIDDEN,
      async (request, reply) => {
        const { token } = request.params;
        const s = TOKEN.test(token) ? await subscriptionOfUnsubscribeToken(db, token) : undefined;
        if (!s) return unknownLink(request, reply);
        return page(request, reply, 200, (t) => ({
          title: t.alertUnsubscribeTitle,
          body: html`<p>${t.alertUnsubscribeQuestion(s.code, s.target)}</p>
            <form method="post">
              <input type="hidden" name="List-Unsubscribe" value="One-Click" />
              <button type="submit">${t.alertUnsubscribeButton}</button>
            </form>`,
        }));
      },
    );
    scope.post<{ Params: { token: string } }>(
      '/alerts/unsubscribe/:token',
      HIDDEN,
      async (request, reply) => {
        const { token } = request.params;
        if (!TOKEN.test(token) || !(await unsubscribe(db, token)))
          return unknownLink(request, reply);
        return page(request, reply, 200, (t) => ({
          title: t.alertUnsubscribedTitle,
          body: html`<p class="notice" role="status">${t.alertUnsubscribed}</p>`,
        }));
      },
    );
  });
}
