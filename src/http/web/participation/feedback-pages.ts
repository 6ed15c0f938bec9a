import type { FastifyReply, FastifyRequest } from 'fastify';
import { isModerator } from '../../../domain/accounts/scopes.js';
import {
  FEEDBACK_TOPICS,
  FeedbackError,
  listThreads,
  openThread,
  replyToThread,
  type FeedbackThread,
  type FeedbackTopic,
} from '../../../domain/feedback/feedback.js';
import type { Db } from '../../../shared/db/db.js';
import type { ApiApp } from '../../app-context.js';
import { hiddenCsrf, html } from '../../html/html.js';
import { csrfToken, type SignedInBrowser } from '../../session/web-session.js';
import type { Messages } from '../i18n/messages-en.js';
import {
  field,
  formTokenOk,
  participationScope,
  sendParticipationPage,
  sendRefusal,
  signedInReader,
} from './participation-page.js';

export const FEEDBACK_PATH = '/feedback';
export const ADMIN_FEEDBACK_PATH = '/admin/feedback';

function topicText(t: Messages, topic: FeedbackTopic): string {
  const words: Record<FeedbackTopic, string> = {
    'missing-assignment': t.topicMissingAssignment,
    'wrong-assignment': t.topicWrongAssignment,
    'coupled-unit': t.topicCoupledUnit,
    'wrong-circulation': t.topicWrongCirculation,
    'wrong-allocation': t.topicWrongAllocation,
    'more-quota': t.topicMoreQuota,
  };
  return words[topic];
}

function when(d: Date): string {
  return d.toISOString().slice(0, 16).replace('T', ' ');
}

function threadView(t: Messages, thread: FeedbackThread, action: string, csrf: string) {
  return html`<p>
      <span class="chip">${topicText(t, thread.topic)}</span>
      <a href="${thread.page}">${thread.page}</a>
      <span class="muted">${thread.username}, ${when(thread.createdAt)}</span>
    </p>
    <ol class="plain-list thread">
      ${thread.messages.map(
        (m) =>
          html`<li class="${m.fromOperator ? 'operator' : 'reader'}">
            <p class="muted">
              ${m.fromOperator ? t.feedbackOperator : thread.username}, ${when(m.createdAt)}
            </p>
            <p>${m.body}</p>
          </li>`,
      )}
    </ol>
    <form method="post" action="${action}">
      ${hiddenCsrf(csrf)}
      <label
        >${t.feedbackReply} <textarea name="message" required maxlength="4000" rows="4"></textarea>
      </label>
      <div class="buttons"><button type="submit">${t.feedbackReply}</button></div>
    </form>`;
}

function threadList(t: Messages, threads: FeedbackThread[], base: string) {
  if (threads.length === 0) return html`<p>${t.feedbackNone}</p>`;
  return html`<ul class="plain-list">
    ${threads.map(
      (th) =>
        html`<li>
          <a href="${base}/${String(th.id)}">${topicText(t, th.topic)}: ${th.page}</a>
          <span class="muted"
            >${th.username}, ${when(th.updatedAt)}, ${String(th.messages.length)}</span
          >
        </li>`,
    )}
  </ul>`;
}

/**
 * Feedback (/feedback for signed-in readers: a form on one of the live service's topics, tied to
 * the page it came from, and their threads) and the operators' side (/admin/feedback, for
 * moderators and administrators). Plain forms with the session's CSRF token.
 */
export async function registerFeedbackPages(
  app: ApiApp,
  deps: { db: Db; clock: () => number },
): Promise<void> {
  const { db, clock } = deps;
  await app.register(async (scope) => {
    await participationScope(scope);

    const formPage = (
      request: FastifyRequest,
      reply: FastifyReply,
      browser: SignedInBrowser,
      status: number,
      values: { topic: string; page: string; message: string },
      error?: string,
    ) =>
      listThreads(db, { userId: browser.user.userId, limit: 50 }).then((mine) =>
        sendParticipationPage(
          request,
          reply,
          status,
          FEEDBACK_PATH,
          (t) => ({
            title: t.feedbackTitle,
            heading: t.feedbackTitle,
            body: html`${error ? html`<p class="warn" role="alert">${error}</p>` : ''}
              <form method="post" action="${FEEDBACK_PATH}">
                ${hiddenCsrf(csrfToken(request, reply))}
                <p class="muted">${t.feedbackIntro}</p>
                <label
                  >${t.feedbackTopic}
                  <select name="topic">
                    ${FEEDBACK_TOPICS.map(
                      (k) =>
                        html`<option value="${k}" ${values.topic === k ? html`selected` : ''}>
                          ${topicText(t, k)}
                        </option>`,
                    )}
                  </select></label
                >
                <label
                  >${t.feedbackPage}
                  <input name="page" required maxlength="200" value="${values.page}"
                /></label>
                <label
                  >${t.feedbackMessage}
                  <textarea name="message" required maxlength="4000" rows="6">
${values.message}</textarea>
                </label>
                <div class="buttons"><button type="submit">${t.feedbackSend}</button></div>
              </form>
              <h2>${t.feedbackThreads}</h2>
              ${threadList(t, mine, FEEDBACK_PATH)}`,
          }),
          browser,
        ),
      );

    scope.get(FEEDBACK_PATH, { schema: { hide: true } }, async (request, reply) => {
      const browser = await signedInReader(request, reply, FEEDBACK_PATH);
      if (!browser) return reply;
      const q = request.query as Record<string, unknown>;
      const page = typeof q.page === 'string' ? q.page.slice(0, 200) : '/';
      return formPage(request, reply, browser, 200, { topic: '', page, message: '' });
    });

    scope.post(FEEDBACK_PATH, { schema: { hide: true } }, async (request, reply) => {
      const browser = await signedInReader(request, reply, FEEDBACK_PATH);
      if (!browser) return reply;
      if (!formTokenOk(request, reply, FEEDBACK_PATH)) return reply;
      const values = {
        topic: field(request, 'topic'),
        page: field(request, 'page'),
        message: field(request, 'message'),
      };
      try {
        const id = await openThread(db, browser.user.userId, values, clock());
        return reply.redirect(`${FEEDBACK_PATH}/${id}`, 303);
      } catch (err) {
        if (!(err instanceof FeedbackError)) throw err;
        return formPage(request, reply, browser, 400, values, err.message);
      }
    });

    for (const side of ['reader', 'operator'] as const) {
      const base = side === 'reader' ? FEEDBACK_PATH : ADMIN_FEEDBACK_PATH;
      const who = (request: FastifyRequest, reply: FastifyReply) =>
        signedInReader(request, reply, base, (b) => side === 'reader' || isModerator(b.user.role));
      const threadOf = async (request: FastifyRequest, browser: SignedInBrowser) => {
        const id = Number((request.params as { threadId: string }).threadId);
        if (!Number.isSafeInteger(id) || id < 1) return undefined;
        const [thread] = await listThreads(db, {
          threadId: id,
          ...(side === 'reader' ? { userId: browser.user.userId } : {}),
        });
        return thread;
      };
      const notFound = (request: FastifyRequest, reply: FastifyReply, browser: SignedInBrowser) =>
        sendParticipationPage(
          request,
          reply,
          404,
          base,
          (t) => ({
            title: t.feedbackTitle,
            body: html`<p>${t.feedbackNone}</p>
              <p><a href="${base}">${t.back}</a></p>`,
          }),
          browser,
        );

      if (side === 'operator')
        scope.get(base, { schema: { hide: true } }, async (request, reply) => {
          const browser = await who(request, reply);
          if (!browser) return reply;
          const threads = await listThreads(db, { limit: 200 });
          return sendParticipationPage(
            request,
            reply,
            200,
            base,
            (t) => ({
              title: t.feedbackAdminTitle,
              heading: t.feedbackAdminTitle,
              body: threadList(t, threads, base),
            }),
            browser,
          );
        });

      scope.get(`${base}/:threadId`, { schema: { hide: true } }, async (request, reply) => {
        const browser = await who(request, reply);
        if (!browser) return reply;
        const thread = await threadOf(request, browser);
        if (!thread) return notFound(request, reply, browser);
        const here = `${base}/${thread.id}`;
        return sendParticipationPage(
          request,
          reply,
          200,
          here,
          (t) => ({
            title: t.feedbackTitle,
            heading: topicText(t, thread.topic),
            body: html`${threadView(t, thread, here, csrfToken(request, reply))}
              <p><a href="${base}">${t.back}</a></p>`,
          }),
          browser,
        );
      });

      scope.post(`${base}/:threadId`, { schema: { hide: true } }, async (request, reply) => {
        const browser = await who(request, reply);
        if (!browser) return reply;
        if (!formTokenOk(request, reply, base)) return reply;
        const thread = await threadOf(request, browser);
        if (!thread) return notFound(request, reply, browser);
        const here = `${base}/${thread.id}`;
        try {
          await replyToThread(
            db,
            thread.id,
            { userId: browser.user.userId, operator: side === 'operator' },
            field(request, 'message'),
            clock(),
          );
        } catch (err) {
          if (!(err instanceof FeedbackError)) throw err;
          return sendRefusal(request, reply, 400, here, err.message, browser);
        }
        return reply.redirect(here, 303);
      });
    }
  });
}
