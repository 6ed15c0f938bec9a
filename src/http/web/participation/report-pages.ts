import type { FastifyReply, FastifyRequest } from 'fastify';
import { isModerator } from '../../../domain/accounts/scopes.js';
import { CorrectionError } from '../../../domain/corrections/correction-error.js';
import { createReport } from '../../../domain/reports/create-report.js';
import { listReports } from '../../../domain/reports/list-reports.js';
import { decideReport } from '../../../domain/reports/report-decisions.js';
import { ReportError } from '../../../domain/reports/report-error.js';
import type { SightingReport } from '../../../domain/reports/report-types.js';
import type { Db } from '../../../shared/db/db.js';
import { addressLimitKey } from '../../../shared/net/address-limit-key.js';
import { serviceDayOf, ymdOfServiceDay } from '../../../shared/time/service-day.js';
import type { ApiApp } from '../../app-context.js';
import { formBody } from '../../html/form-body.js';
import { hiddenCsrf, html } from '../../html/html.js';
import { reflowTable } from '../../html/reflow-table.js';
import { csrfToken } from '../../session/web-session.js';
import type { Messages } from '../i18n/messages-en.js';
import { answerSwitches } from '../personal-page.js';
import { ADMIN_CORRECTIONS_PATH } from './corrections-page.js';
import { field, formTokenOk, sendParticipationPage, signedInReader } from './participation-page.js';

export const REPORT_PATH = '/report';
export const ADMIN_REPORTS_PATH = '/admin/reports';

function statusText(t: Messages, status: SightingReport['status']): string {
  return status === 'accepted'
    ? t.reportAccepted
    : status === 'refused'
      ? t.reportRefusedStatus
      : t.reportPending;
}

function reportForm(
  t: Messages,
  csrf: string,
  values: { train: string; emu: string; date: string; observedAt: string },
) {
  return html`<form method="post" action="${REPORT_PATH}" class="report-form">
    ${hiddenCsrf(csrf)}
    <p class="muted">${t.reportIntro}</p>
    <label
      >${t.reportTrain} <input name="trainCode" required maxlength="64" value="${values.train}"
    /></label>
    <label
      >${t.reportEmu} <input name="emuCode" required maxlength="64" value="${values.emu}"
    /></label>
    <label
      >${t.reportDate}
      <input name="date" required pattern="[0-9]{8}" inputmode="numeric" value="${values.date}"
    /></label>
    <label
      >${t.reportTime} <input name="observedAt" type="datetime-local" value="${values.observedAt}"
    /></label>
    <div class="buttons"><button type="submit">${t.reportSubmit}</button></div>
  </form>`;
}

/** The time of a datetime-local field, read as Shanghai time. */
function shanghaiLocal(value: string): string | undefined {
  if (value.trim() === '') return undefined;
  return /^\d{4}-\d\d-\d\dT\d\d:\d\d$/.test(value) ? `${value}:00+08:00` : value;
}

function queueRow(t: Messages, r: SightingReport, csrf: string) {
  const base = `${ADMIN_REPORTS_PATH}/${r.id}`;
  const decide = (what: 'accept' | 'refuse') =>
    html`<form method="post" action="${base}/${what}" class="inline">
      ${hiddenCsrf(csrf)}
      <input
        name="reason"
        required
        maxlength="1000"
        aria-label="${t.reportReason}"
        placeholder="${t.reportReason}"
      />
      <button type="submit" class="${what === 'refuse' ? 'danger' : ''}">
        ${what === 'accept' ? t.reportAccept : t.reportRefuse}
      </button>
    </form>`;
  return html`<tr id="report-${String(r.id)}">
    <th scope="row" data-label="${t.reportTrain}">
      <a href="/train/${encodeURIComponent(r.trainCode)}">${r.trainCode}</a>
    </th>
    <td data-label="${t.reportEmu}">
      <a href="/emu/${encodeURIComponent(r.emuCode)}">${r.emuCode}</a>
    </td>
    <td data-label="${t.reportDate}">${r.date}</td>
    <td data-label="${t.reportReporter}">
      ${r.reporter.username}<br /><span class="muted"
        >${t.reportTrust(r.reporter.corroborated, r.reporter.refused)}</span
      >
    </td>
    <td data-label="${t.status}">
      ${statusText(t, r.status)}${r.reason ? html`<br /><span class="muted">${r.reason}</span>` : ''}
      ${r.qrText ? html`<br /><code>${r.qrText}</code>` : ''}
    </td>
    <td data-label="${t.decision}">
      ${r.status !== 'accepted' ? decide('accept') : ''}
      ${r.status !== 'refused' ? decide('refuse') : ''}
    </td>
  </tr>`;
}

/**
 * The report form (/report, for signed-in readers; the train and unit pages link to it, so the
 * pages anonymous readers share from the cache carry no one's form) and the moderators' queue
 * (/admin/reports). Plain forms with the session's CSRF token: they work with JavaScript off.
 */
export async function registerReportPages(
  app: ApiApp,
  deps: { db: Db; clock: () => number },
): Promise<void> {
  const { db, clock } = deps;
  await app.register(async (scope) => {
    await formBody(scope);
    scope.addHook('preHandler', answerSwitches);

    scope.get(REPORT_PATH, { schema: { hide: true } }, async (request, reply) => {
      const browser = await signedInReader(request, reply, REPORT_PATH);
      if (!browser) return reply;
      const q = request.query as Record<string, unknown>;
      const text = (k: string) => (typeof q[k] === 'string' ? (q[k] as string).slice(0, 64) : '');
      const today = ymdOfServiceDay(serviceDayOf(Math.floor(clock() / 1000)));
      const mine = await listReports(db, { userId: browser.user.userId, limit: 20 });
      return sendParticipationPage(
        request,
        reply,
        200,
        REPORT_PATH,
        (t) => ({
          title: t.reportTitle,
          heading: t.reportTitle,
          body: html`${reportForm(t, csrfToken(request, reply), {
            train: text('train'),
            emu: text('emu'),
            date: text('date') || today,
            observedAt: '',
          })}
          ${
            mine.length > 0
              ? html`<h2>${t.reportMine}</h2>
                  <ul>
                    ${mine.map(
                      (r) =>
                        html`<li>
                          ${r.date} ${r.trainCode} ${r.emuCode}: ${statusText(t, r.status)}
                        </li>`,
                    )}
                  </ul>`
              : ''
          }`,
        }),
        browser,
      );
    });

    scope.post(REPORT_PATH, { schema: { hide: true } }, async (request, reply) => {
      const browser = await signedInReader(request, reply, REPORT_PATH);
      if (!browser) return reply;
      if (!formTokenOk(request, reply, REPORT_PATH)) return reply;
      const values = {
        train: field(request, 'trainCode'),
        emu: field(request, 'emuCode'),
        date: field(request, 'date'),
        observedAt: field(request, 'observedAt'),
      };
      try {
        const r = await createReport(
          db,
          { userId: browser.user.userId, address: addressLimitKey(request.ip) },
          {
            trainCode: values.train,
            emuCode: values.emu,
            date: values.date,
            observedAt: shanghaiLocal(values.observedAt),
          },
          { nowMs: clock() },
        );
        return sendParticipationPage(
          request,
          reply,
          200,
          REPORT_PATH,
          (t) => ({
            title: t.reportThanks,
            heading: t.reportThanks,
            body: html`<p>${statusText(t, r.status)}${r.reason ? html`: ${r.reason}` : ''}</p>
              <p><a href="${REPORT_PATH}">${t.back}</a></p>`,
          }),
          browser,
        );
      } catch (err) {
        if (!(err instanceof ReportError)) throw err;
        return sendParticipationPage(
          request,
          reply,
          err.kind === 'limit' ? 429 : 400,
          REPORT_PATH,
          (t) => ({
            title: t.refused,
            heading: t.reportTitle,
            body: html`<p class="warn" role="alert">${err.message}</p>
              ${reportForm(t, csrfToken(request, reply), values)}`,
          }),
          browser,
        );
      }
    });

    const moderator = (request: FastifyRequest, reply: FastifyReply) =>
      signedInReader(request, reply, ADMIN_REPORTS_PATH, (b) => isModerator(b.user.role));

    scope.get(ADMIN_REPORTS_PATH, { schema: { hide: true } }, async (request, reply) => {
      const browser = await moderator(request, reply);
      if (!browser) return reply;
      const q = request.query as Record<string, unknown>;
      const status = q.status === 'accepted' || q.status === 'refused' ? q.status : 'pending';
      const items = await listReports(db, { status, limit: 200 });
      const csrf = csrfToken(request, reply);
      return sendParticipationPage(
        request,
        reply,
        200,
        ADMIN_REPORTS_PATH,
        (t) => ({
          title: t.reportQueueTitle,
          heading: t.reportQueueTitle,
          body: html`<p class="muted">
              ${t.reportQueueIntro}
              <a href="${ADMIN_CORRECTIONS_PATH}">${t.correctionsTitle}</a>
            </p>
            <p>
              <a href="${ADMIN_REPORTS_PATH}">${t.reportPending}</a> ·
              <a href="${ADMIN_REPORTS_PATH}?status=accepted">${t.reportAccepted}</a> ·
              <a href="${ADMIN_REPORTS_PATH}?status=refused">${t.reportRefusedStatus}</a>
            </p>
            ${
              items.length === 0
                ? html`<p>${t.reviewNothing}</p>`
                : reflowTable({
                    columns: [
                      t.reportTrain,
                      t.reportEmu,
                      t.reportDate,
                      t.reportReporter,
                      t.status,
                      t.decision,
                    ],
                    rows: items.map((r) => queueRow(t, r, csrf)),
                  })
            }`,
        }),
        browser,
      );
    });

    for (const decision of ['accept', 'refuse'] as const) {
      scope.post(
        `${ADMIN_REPORTS_PATH}/:reportId/${decision}`,
        { schema: { hide: true } },
        async (request, reply) => {
          const browser = await moderator(request, reply);
          if (!browser) return reply;
          if (!formTokenOk(request, reply, ADMIN_REPORTS_PATH)) return reply;
          const id = Number((request.params as { reportId: string }).reportId);
          try {
            await decideReport(
              db,
              id,
              decision,
              field(request, 'reason'),
              { via: 'api', userId: browser.user.userId, name: browser.user.username },
              clock(),
            );
          } catch (err) {
            if (!(err instanceof CorrectionError)) throw err;
            return sendParticipationPage(
              request,
              reply,
              err.kind === 'not_found' ? 404 : 400,
              ADMIN_REPORTS_PATH,
              (t) => ({
                title: t.refused,
                body: html`<p>${err.message}</p>
                  <p><a href="${ADMIN_REPORTS_PATH}">${t.back}</a></p>`,
              }),
              browser,
            );
          }
          return reply.redirect(ADMIN_REPORTS_PATH, 303);
        },
      );
    }
  });
}
