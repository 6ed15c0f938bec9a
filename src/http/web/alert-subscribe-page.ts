import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AlertError } from '../../domain/alerts/alert-error.js';
import { ALERT_KINDS, type AlertKind } from '../../domain/alerts/alert-events.js';
import type { Config } from '../../shared/config/config.js';
import type { Db } from '../../shared/db/db.js';
import { AlertMailUnavailableError, AlertSubscribing } from '../alert-subscribing.js';
import { formBody } from '../html/form-body.js';
import { hiddenCsrf, html } from '../html/html.js';
import { csrfToken, csrfValid, loginUrl, signedInBrowser } from '../session/web-session.js';
import { personalView, sendPersonalPage } from './personal-page.js';

/** The address of the subscribe page of one train, unit or station (the pages' notify-me link). */
export function alertSubscribeHref(kind: AlertKind, code: string): string {
  return `/alerts/new?kind=${kind}&code=${encodeURIComponent(code)}`;
}

interface Target {
  kind: AlertKind;
  code: string;
}

function targetOf(query: unknown): Target | undefined {
  const q = (query ?? {}) as { kind?: unknown; code?: unknown };
  if (typeof q.kind !== 'string' || !(ALERT_KINDS as string[]).includes(q.kind)) return undefined;
  if (typeof q.code !== 'string' || q.code.trim() === '' || q.code.length > 40) return undefined;
  return { kind: q.kind as AlertKind, code: q.code.trim() };
}

/**
 * /alerts/new: a signed-in reader's subscribe page for one train, unit or station. The train and
 * unit pages (kept in the shared page cache, the same for every reader) only link here; this
 * page is personal (no-store). E-mail works as a plain form with the session's CSRF token; the
 * "this browser" button is the page script's (alert-push.ts): without scripts it stays hidden.
 */
export async function registerAlertSubscribePage(
  app: FastifyInstance,
  db: Db,
  config: Config,
): Promise<void> {
  const subscribing = new AlertSubscribing(db, config);
  app.addHook('onClose', async () => subscribing.close());
  await app.register(async (scope) => {
    await formBody(scope);
    const show = async (
      request: FastifyRequest,
      reply: FastifyReply,
      target: Target,
      message?: string,
      status = 200,
    ) => {
      const signed = (await signedInBrowser(request))!;
      const view = personalView(request, alertSubscribeHref(target.kind, target.code));
      const { t } = view;
      const token = csrfToken(request, reply);
      return sendPersonalPage(request, reply, status, view, {
        title: t.alertsTitle(target.code),
        signedIn: { username: signed.user.username, csrfToken: token },
        body: html`${message ? html`<p class="notice" role="status">${message}</p>` : ''}
          <p>${t.alertsIntro}</p>
          <form method="post" action="${alertSubscribeHref(target.kind, target.code)}">
            ${hiddenCsrf(token)}
            <label
              >${t.alertsEmail} <input type="email" name="address" required maxlength="254"
            /></label>
            <label><input type="checkbox" name="digest" value="1" /> ${t.alertsDigest}</label>
            <button type="submit">${t.alertsSubscribeEmail}</button>
          </form>
          <p
            data-alert-push
            data-kind="${target.kind}"
            data-code="${target.code}"
            data-done="${t.alertsPushDone}"
            data-failed="${t.alertsPushFailed}"
            hidden
          >
            <button type="button">${t.alertsPush}</button>
          </p>`,
      });
    };
    const guard = async (request: FastifyRequest, reply: FastifyReply) => {
      const target = targetOf(request.query);
      if (!target) {
        await reply.code(400).type('text/plain').send('kind and code are required');
        return undefined;
      }
      if (!(await signedInBrowser(request))) {
        await reply.redirect(loginUrl(alertSubscribeHref(target.kind, target.code)), 303);
        return undefined;
      }
      return target;
    };
    scope.get('/alerts/new', { schema: { hide: true } }, async (request, reply) => {
      const target = await guard(request, reply);
      return target ? show(request, reply, target) : reply;
    });
    scope.post('/alerts/new', { schema: { hide: true } }, async (request, reply) => {
      const target = await guard(request, reply);
      if (!target) return reply;
      const form = (request.body ?? {}) as Record<string, unknown>;
      if (!csrfValid(request, form)) return reply.code(403).type('text/plain').send('forbidden');
      const { t } = personalView(request);
      const signed = (await signedInBrowser(request))!;
      try {
        const s = await subscribing.subscribe(
          signed.user.userId,
          {
            kind: target.kind,
            code: target.code,
            channel: 'email',
            address: form.address,
            digest: form.digest === '1',
          },
          request.log,
        );
        return show(request, reply, target, t.alertsCheckMail(s.target));
      } catch (err) {
        if (!(err instanceof AlertError) && !(err instanceof AlertMailUnavailableError)) throw err;
        return show(request, reply, target, t.alertsRefused(err.message), 400);
      }
    });
  });
}
