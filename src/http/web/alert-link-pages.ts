import type { FastifyInstance, FastifyReply } from 'fastify';
import {
  subscriptionOfUnsubscribeToken,
  unsubscribe,
  verifySubscription,
} from '../../domain/alerts/subscriptions.js';
import { hashToken } from '../../domain/alerts/subscriptions.js';
import type { Db } from '../../shared/db/db.js';
import { formBody } from '../html/form-body.js';
import { html, type Html } from '../html/html.js';

/** Pages for people, not API operations: out of the OpenAPI document. */
const HIDDEN = { schema: { hide: true } };

const TOKEN = /^[A-Za-z0-9_-]{20,64}$/;

/** A small page of its own: these links are opened from a mail, signed in or not. */
function page(reply: FastifyReply, status: number, title: string, body: Html): FastifyReply {
  return (
    reply
      .code(status)
      .header('content-type', 'text/html; charset=utf-8')
      // The token is in the path: no cache keeps it, no referrer carries it.
      .header('cache-control', 'no-store')
      .header('referrer-policy', 'no-referrer')
      .send(
        html`<!doctype html>
          <html lang="zh-CN">
            <head>
              <meta charset="utf-8" />
              <meta name="viewport" content="width=device-width, initial-scale=1" />
              <meta name="robots" content="noindex" />
              <title>${title}</title>
            </head>
            <body>
              <main>${body}</main>
            </body>
          </html>`.text,
      )
  );
}

const unknownLink = (reply: FastifyReply) =>
  page(
    reply,
    404,
    '链接无效 / Link not valid',
    html`<h1>链接无效或已使用 / This link is not valid, or was used already</h1>`,
  );

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
    scope.get<{ Params: { token: string } }>(
      '/alerts/verify/:token',
      HIDDEN,
      async (request, reply) => {
        const { token } = request.params;
        if (!TOKEN.test(token)) return unknownLink(reply);
        const known = await db.query(
          `SELECT 1 FROM alert_subscriptions WHERE verification_token_hash = $1`,
          [hashToken(token)],
        );
        if (known.rowCount === 0) return unknownLink(reply);
        return page(
          reply,
          200,
          '确认订阅 / Confirm alerts',
          html`<h1>确认接收提醒？ / Receive these alerts?</h1>
            <form method="post"><button type="submit">确认 / Confirm</button></form>`,
        );
      },
    );
    scope.post<{ Params: { token: string } }>(
      '/alerts/verify/:token',
      HIDDEN,
      async (request, reply) => {
        const { token } = request.params;
        const s = TOKEN.test(token) ? await verifySubscription(db, token) : undefined;
        if (!s) return unknownLink(reply);
        return page(
          reply,
          200,
          '已确认 / Confirmed',
          html`<h1>
            已确认：${s.code} 的提醒将发送至 ${s.target} / Confirmed: alerts about ${s.code} go to
            ${s.target}
          </h1>`,
        );
      },
    );
    scope.get<{ Params: { token: string } }>(
      '/alerts/unsubscribe/:token',
      HIDDEN,
      async (request, reply) => {
        const { token } = request.params;
        const s = TOKEN.test(token) ? await subscriptionOfUnsubscribeToken(db, token) : undefined;
        if (!s) return unknownLink(reply);
        return page(
          reply,
          200,
          '退订 / Unsubscribe',
          html`<h1>退订 ${s.code} 的提醒？ / Stop alerts about ${s.code}?</h1>
            <p>${s.target}</p>
            <form method="post">
              <input type="hidden" name="List-Unsubscribe" value="One-Click" />
              <button type="submit">退订 / Unsubscribe</button>
            </form>`,
        );
      },
    );
    scope.post<{ Params: { token: string } }>(
      '/alerts/unsubscribe/:token',
      HIDDEN,
      async (request, reply) => {
        const { token } = request.params;
        if (!TOKEN.test(token) || !(await unsubscribe(db, token))) return unknownLink(reply);
        return page(
          reply,
          200,
          '已退订 / Unsubscribed',
          html`<h1>已退订，不会再发送 / Unsubscribed: nothing more will be sent</h1>`,
        );
      },
    );
  });
}
