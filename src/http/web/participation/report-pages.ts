import type { FastifyInstance } from 'fastify';
import { createReport } from '../../../domain/reports/create-report.js';
import { listReports } from '../../../domain/reports/list-reports.js';
import { ReportError } from '../../../domain/reports/report-error.js';
import {
  attachReportPhoto,
  checkReportPhoto,
  hasReportPhoto as hasPhoto,
  MAX_PHOTO_BYTES,
} from '../../../domain/reports/report-photo.js';
import type { SightingReport } from '../../../domain/reports/report-types.js';
import type { Db } from '../../../shared/db/db.js';
import { addressLimitKey } from '../../../shared/net/address-limit-key.js';
import { serviceDayOf, ymdOfServiceDay } from '../../../shared/time/service-day.js';
import type { ApiApp } from '../../app-context.js';
import { multipartForm, oversizedField, postedFile } from '../../html/multipart-form.js';
import { hiddenCsrf, html } from '../../html/html.js';
import { csrfToken } from '../../session/web-session.js';
import type { Messages } from '../i18n/messages-en.js';
import {
  field,
  formTokenOk,
  participationScope,
  sendParticipationPage,
  sendRefusal,
  signedInReader,
} from './participation-page.js';

export const REPORT_PATH = '/report';
/** The report form's page script: the QR code read in the page (client/report-photo.ts). */
const REPORT_PHOTO_SCRIPT = 'report-photo.js';

/** A report's status in words. */
export function statusText(t: Messages, status: SightingReport['status']): string {
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
  return html`<form
    method="post"
    action="${REPORT_PATH}"
    class="report-form"
    enctype="multipart/form-data"
    data-report-photo
  >
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
    <label
      >${t.reportPhoto} <input name="photo" type="file" accept="image/jpeg,image/png,image/webp"
    /></label>
    <output
      data-qr-output
      aria-live="polite"
      data-read="${t.reportQrRead}"
      data-none="${t.reportQrNone}"
      data-unreadable="${t.reportQrUnreadable}"
    ></output>
    <div class="buttons"><button type="submit">${t.reportSubmit}</button></div>
  </form>`;
}

/** The time of a datetime-local field, read as Shanghai time. */
function shanghaiLocal(value: string): string | undefined {
  if (value.trim() === '') return undefined;
  return /^\d{4}-\d\d-\d\dT\d\d:\d\d$/.test(value) ? `${value}:00+08:00` : value;
}

/**
 * The report form (/report, for signed-in readers; the train and unit pages link to it, so the
 * pages anonymous readers share from the cache carry no one's form): a plain form with the
 * session's CSRF token that works with JavaScript off, its photo posted as multipart and read
 * on the server; with JavaScript the page reads the photo's QR code first (report-photo.js).
 * The moderators' queue is in report-queue-pages.ts.
 */
export async function registerReportPages(
  app: ApiApp,
  deps: { db: Db; clock: () => number },
): Promise<void> {
  const { db, clock } = deps;
  await app.register(async (scope) => {
    await participationScope(scope);
    multipartForm(scope as unknown as FastifyInstance, {
      files: ['photo'],
      maxFileBytes: MAX_PHOTO_BYTES,
    });

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
          scripts: [REPORT_PHOTO_SCRIPT],
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
      const over = oversizedField(request);
      if (over !== undefined) {
        // The rest of the body is never read: the connection closes after this answer.
        reply.header('connection', 'close');
        return sendRefusal(
          request,
          reply,
          413,
          REPORT_PATH,
          `${over}: larger than ${String(MAX_PHOTO_BYTES)} bytes`,
          browser,
          (t) => t.reportTitle,
        );
      }
      if (!formTokenOk(request, reply, REPORT_PATH)) return reply;
      const values = {
        train: field(request, 'trainCode'),
        emu: field(request, 'emuCode'),
        date: field(request, 'date'),
        observedAt: field(request, 'observedAt'),
      };
      try {
        // The photo is checked first: a photo refused refuses the report, and nothing is kept.
        const posted = postedFile(request, 'photo');
        const photo = posted ? await checkReportPhoto(posted.bytes) : undefined;
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
        // The same report again keeps the photo it has (one a report).
        if (photo && (r.created || !(await hasPhoto(db, r.id))))
          await attachReportPhoto(db, r.id, browser.user.userId, photo);
        return sendParticipationPage(
          request,
          reply,
          200,
          REPORT_PATH,
          (t) => ({
            title: t.reportThanks,
            heading: t.reportThanks,
            body: html`<p>${statusText(t, r.status)}${r.reason ? html`: ${r.reason}` : ''}</p>
              ${
                photo
                  ? html`<p data-qr-server>
                      ${
                        photo.qrText === null
                          ? t.reportQrNone
                          : html`${t.reportQrRead} <code>${photo.qrText}</code>`
                      }
                    </p>`
                  : ''
              }
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
            scripts: [REPORT_PHOTO_SCRIPT],
            body: html`<p class="warn" role="alert">${err.message}</p>
              ${reportForm(t, csrfToken(request, reply), values)}`,
          }),
          browser,
        );
      }
    });
  });
}
