import { accountActor } from '../../../domain/corrections/correction-types.js';
import { CorrectionError } from '../../../domain/corrections/correction-error.js';
import { listReports } from '../../../domain/reports/list-reports.js';
import { decideReport } from '../../../domain/reports/report-decisions.js';
import { readReportPhoto } from '../../../domain/reports/report-photo.js';
import type { SightingReport } from '../../../domain/reports/report-types.js';
import type { Db } from '../../../shared/db/db.js';
import type { ApiApp } from '../../app-context.js';
import { hiddenCsrf, html } from '../../html/html.js';
import { reflowTable } from '../../html/reflow-table.js';
import { csrfToken } from '../../session/web-session.js';
import type { Messages } from '../i18n/messages-en.js';
import { ADMIN_CORRECTIONS_PATH } from './corrections-page.js';
import {
  field,
  formTokenOk,
  moderatorReader,
  participationScope,
  sendParticipationPage,
  sendRefusal,
} from './participation-page.js';
import { statusText } from './report-pages.js';

export const ADMIN_REPORTS_PATH = '/admin/reports';

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
      ${r.photoRef !== null ? html`<br /><a href="${base}/photo">${t.reportPhotoLink}</a>` : ''}
    </td>
    <td data-label="${t.decision}">
      ${r.status !== 'accepted' ? decide('accept') : ''}
      ${r.status !== 'refused' ? decide('refuse') : ''}
    </td>
  </tr>`;
}

/**
 * The moderators' queue (/admin/reports): each report with its reporter's trust, the QR text
 * and photo, and forms to accept or refuse it with a reason (plain forms with the session's
 * CSRF token); each decision a correction, undone on /admin/corrections.
 */
export async function registerReportQueuePages(
  app: ApiApp,
  deps: { db: Db; clock: () => number },
): Promise<void> {
  const { db, clock } = deps;
  await app.register(async (scope) => {
    await participationScope(scope);
    const moderator = moderatorReader(ADMIN_REPORTS_PATH);

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

    scope.get(
      `${ADMIN_REPORTS_PATH}/:reportId/photo`,
      { schema: { hide: true } },
      async (request, reply) => {
        const browser = await moderator(request, reply);
        if (!browser) return reply;
        const raw = (request.params as { reportId: string }).reportId;
        const id = /^[1-9]\d{0,15}$/.test(raw) ? Number(raw) : 0;
        const jpeg = id > 0 ? await readReportPhoto(db, id) : undefined;
        if (!jpeg)
          return sendParticipationPage(
            request,
            reply,
            404,
            ADMIN_REPORTS_PATH,
            (t) => ({
              title: t.notFoundTitle,
              body: html`<p>reportId: no photo of report ${raw.slice(0, 20)}</p>`,
            }),
            browser,
          );
        // Always the JPEG the server made (never the bytes a reader sent), shown inline, never
        // sniffed as anything else, kept by no cache: a moderator's eyes only.
        return (
          reply
            .type('image/jpeg')
            .header('content-disposition', `inline; filename="report-${String(id)}.jpg"`)
            .header('x-content-type-options', 'nosniff')
            .header('cache-control', 'private, no-store')
            // Opened by itself, the image is a document of the browser's own (which styles it
            // inline): nothing else may load or run in it.
            .header(
              'content-security-policy',
              "default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; sandbox",
            )
            .send(jpeg)
        );
      },
    );

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
              accountActor(browser.user),
              clock(),
            );
          } catch (err) {
            if (!(err instanceof CorrectionError)) throw err;
            return sendRefusal(
              request,
              reply,
              err.kind === 'not_found' ? 404 : 400,
              ADMIN_REPORTS_PATH,
              err.message,
              browser,
            );
          }
          return reply.redirect(ADMIN_REPORTS_PATH, 303);
        },
      );
    }
  });
}
