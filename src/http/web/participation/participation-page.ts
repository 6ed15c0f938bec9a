import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isModerator } from '../../../domain/accounts/scopes.js';
import { formBody } from '../../html/form-body.js';
import type { Html } from '../../html/html.js';
import { html } from '../../html/html.js';
import {
  csrfToken,
  csrfValid,
  loginUrl,
  signedInBrowser,
  type SignedInBrowser,
} from '../../session/web-session.js';
import type { Messages } from '../i18n/messages-en.js';
import { answerSwitches, personalView, sendPersonalPage } from '../personal-page.js';

/**
 * What every scope of these pages has: posted forms read (urlencoded), and the reader's answer
 * switches (language, theme) applied before each handler.
 */
export async function participationScope(scope: FastifyInstance): Promise<void> {
  await formBody(scope);
  scope.addHook('preHandler', answerSwitches);
}

/**
 * The frame of the pages people take part through (reports, moderation, feedback): personal
 * pages (no-store, they carry the reader's CSRF token), a form's answer shown at `here`.
 */
export function sendParticipationPage(
  request: FastifyRequest,
  reply: FastifyReply,
  status: number,
  here: string,
  page: (t: Messages) => {
    title: string;
    heading?: string;
    body: Html;
    scripts?: readonly string[];
  },
  signedIn?: SignedInBrowser,
): FastifyReply {
  const view = personalView(request, request.method === 'GET' ? undefined : here);
  const { title, heading, body, scripts } = page(view.t);
  return sendPersonalPage(request, reply, status, view, {
    title,
    ...(scripts ? { scripts } : {}),
    heading: heading === undefined ? undefined : html`${heading}`,
    body,
    signedIn: signedIn && {
      username: signedIn.user.username,
      csrfToken: csrfToken(request, reply),
    },
  });
}

/**
 * The signed-in reader (and, with `allowed`, one of the right role), or undefined with the
 * answer sent: a redirect to sign in, or 403.
 */
export async function signedInReader(
  request: FastifyRequest,
  reply: FastifyReply,
  here: string,
  allowed: (b: SignedInBrowser) => boolean = () => true,
): Promise<SignedInBrowser | undefined> {
  const browser = await signedInBrowser(request);
  if (!browser) {
    await reply.redirect(loginUrl(request.url), 303);
    return undefined;
  }
  if (!allowed(browser)) {
    await sendParticipationPage(request, reply, 403, here, (t) => ({
      title: t.forbiddenTitle,
      heading: t.moderatorsOnly,
      body: html``,
    }));
    return undefined;
  }
  return browser;
}

/** signedInReader for a page that moderators (administrators too) read at `here`. */
export function moderatorReader(
  here: string,
): (request: FastifyRequest, reply: FastifyReply) => Promise<SignedInBrowser | undefined> {
  return (request, reply) => signedInReader(request, reply, here, (b) => isModerator(b.user.role));
}

/**
 * What the reader asked refused, as a page: the reason as an alert (a screen reader says it at
 * once) and a link back to `here`, where the refused form or list is.
 */
export function sendRefusal(
  request: FastifyRequest,
  reply: FastifyReply,
  status: number,
  here: string,
  message: string | ((t: Messages) => string),
  signedIn?: SignedInBrowser,
  heading?: (t: Messages) => string,
): FastifyReply {
  return sendParticipationPage(
    request,
    reply,
    status,
    here,
    (t) => ({
      title: t.refused,
      ...(heading ? { heading: heading(t) } : {}),
      body: html`<p class="warn" role="alert">
          ${typeof message === 'string' ? message : message(t)}
        </p>
        <p><a href="${here}">${t.back}</a></p>`,
    }),
    signedIn,
  );
}

/** Whether a posted form carries the session's CSRF token; if not, the answer is sent. */
export function formTokenOk(request: FastifyRequest, reply: FastifyReply, here: string): boolean {
  if (csrfValid(request, request.body as Record<string, unknown>)) return true;
  void sendParticipationPage(request, reply, 403, here, (t) => ({
    title: t.formExpiredTitle,
    heading: t.formExpiredHeading,
    body: html`<p><a href="${here}">${t.reload}</a>.</p>`,
  }));
  return false;
}

/** One text field of a posted form ('' when absent or not text). */
export function field(request: FastifyRequest, name: string): string {
  const v = (request.body as Record<string, unknown> | undefined)?.[name];
  return typeof v === 'string' ? v : '';
}
