import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ApiApp } from '../app-context.js';
import { html } from '../html/html.js';
import { reflowTable } from '../html/reflow-table.js';
import { csrfToken, loginUrl, signedInBrowser } from '../session/web-session.js';
import type { Messages } from '../web/i18n/messages-en.js';
import { answerSwitches, personalView, sendPersonalPage } from '../web/personal-page.js';
import type { Queryable } from '../../shared/db/db.js';
import { listSources, sourceLagSeconds, type Source } from '../../domain/sources/source-store.js';
import { shanghaiTime } from '../../shared/time/shanghai-time.js';

export const SOURCES_PAGE_PATH = '/admin/sources';

function sourceRow(t: Messages, s: Source, nowMs: number) {
  const lag = sourceLagSeconds(s, nowMs);
  return html`<tr>
    <th scope="row" data-label="${t.sourceName}"><code>${s.name}</code></th>
    <td data-label="${t.sourceKind}">${s.kind}</td>
    <td data-label="${t.sourceUrl}">
      <code>${s.baseUrl}</code>${
        s.apiKeyEnv
          ? html`<br /><span class="muted">${t.sourceKeyFrom}</span> <code>$${s.apiKeyEnv}</code>`
          : ''
      }
    </td>
    <td data-label="${t.sourceSchedule}">
      ${s.schedule ? html`<code>${s.schedule}</code>` : t.sourceByHand}<br /><span class="muted"
        >${t.sourceRateTrust(s.rate, s.trust)}</span
      >
    </td>
    <td data-label="${t.sourceLastSuccess}">
      ${s.lastSuccessAt ? shanghaiTime(s.lastSuccessAt) : t.sourceNever}
    </td>
    <td data-label="${t.sourceLag}">${lag === null ? '-' : t.sourceLagText(lag)}</td>
    <td data-label="${t.sourceLastError}">
      ${
        s.lastError
          ? html`<span class="warn">${s.lastError}</span>${
                s.lastErrorAt
                  ? html`<br /><span class="muted">${shanghaiTime(s.lastErrorAt)}</span>`
                  : ''
              }`
          : '-'
      }
    </td>
    <td data-label="${t.sourceCounters}">
      ${t.sourceCountersText(s.linesTaken, s.linesRefused, s.requests, s.refusals, s.errors)}
    </td>
  </tr>`;
}

/**
 * GET /admin/sources: the sources this server pulls (emutrack source add), how their pulls went
 * and how far behind each is, for administrators (signed out: to /login and back; any other
 * role: 403). Read-only: sources are managed by the CLI. A source's key is never shown, only
 * the name of the environment variable it is read from (the key is not stored anyway).
 */
export async function registerSourcesPage(app: ApiApp, db: Queryable): Promise<void> {
  await app.register(async (scope) => {
    scope.addHook('preHandler', answerSwitches);
    scope.get(SOURCES_PAGE_PATH, { schema: { hide: true } }, async (request, reply) =>
      sourcesPage(db, request, reply),
    );
  });
}

async function sourcesPage(
  db: Queryable,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<FastifyReply> {
  const browser = await signedInBrowser(request);
  if (!browser) {
    reply.header('cache-control', 'no-store');
    return reply.redirect(loginUrl(request.url), 303);
  }
  const view = personalView(request);
  const { t } = view;
  if (browser.user.role !== 'admin')
    return sendPersonalPage(request, reply, 403, view, {
      title: t.forbiddenTitle,
      heading: html`${t.administratorsOnly}`,
      body: html`<p>${t.sourcesAdministratorsOnly}</p>
        <p><a href="/account">${t.yourAccount}</a></p>`,
    });
  // The lag is counted on the database's clock, as the pulls' successes and /metrics are.
  const [sources, now] = await Promise.all([
    listSources(db),
    db.query<{ now: Date }>('SELECT now() AS now'),
  ]);
  const nowMs = now.rows[0]!.now.getTime();
  return sendPersonalPage(request, reply, 200, view, {
    title: t.sourcesTitle,
    heading: html`${t.sourcesTitle}`,
    body: html`<p class="muted">${t.sourcesIntro}</p>
      ${reflowTable({
        className: 'sources',
        columns: [
          t.sourceName,
          t.sourceKind,
          t.sourceUrl,
          t.sourceSchedule,
          t.sourceLastSuccess,
          t.sourceLag,
          t.sourceLastError,
          t.sourceCounters,
        ],
        rows: sources.map((s) => sourceRow(t, s, nowMs)),
        empty: t.sourcesNone,
      })}`,
    signedIn: { username: browser.user.username, csrfToken: csrfToken(request, reply) },
  });
}
