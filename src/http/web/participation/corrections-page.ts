import { undoCorrection } from '../../../domain/corrections/apply-corrections.js';
import { CorrectionError } from '../../../domain/corrections/correction-error.js';
import { accountActor, type Correction } from '../../../domain/corrections/correction-types.js';
import { listCorrections } from '../../../domain/corrections/list-corrections.js';
import type { Db } from '../../../shared/db/db.js';
import type { ApiApp } from '../../app-context.js';
import { hiddenCsrf, html } from '../../html/html.js';
import { csrfToken, type SignedInBrowser } from '../../session/web-session.js';
import type { Messages } from '../i18n/messages-en.js';
import {
  field,
  formTokenOk,
  moderatorReader,
  participationScope,
  sendParticipationPage,
  sendRefusal,
} from './participation-page.js';

export const ADMIN_CORRECTIONS_PATH = '/admin/corrections';
const PAGE_SIZE = 50;

/**
 * Who may undo a correction from the page: an administrator any (as the API and the CLI let
 * them), a moderator the report decisions, which are theirs to make; an undo is never undone.
 */
function mayUndo(browser: SignedInBrowser, c: Correction): boolean {
  if (c.kind === 'undo' || c.undoneBy !== undefined) return false;
  return browser.user.role === 'admin' || c.kind === 'report-accept' || c.kind === 'report-refuse';
}

function kindText(t: Messages, c: Correction): string {
  switch (c.kind) {
    case 'retract':
      return t.correctionRetract;
    case 'merge-emu':
      return t.correctionMerge;
    case 'undo':
      return t.correctionUndo;
    case 'report-accept':
      return t.reportAccept;
    case 'report-refuse':
      return t.reportRefuse;
  }
}

/** What the correction touched, in words with links to it. */
function whatOf(t: Messages, c: Correction) {
  if (c.reportId !== undefined)
    return html`<a
      href="/admin/reports?status=${c.kind === 'report-accept' ? 'accepted' : 'refused'}#report-${String(c.reportId)}"
      >${t.correctionReport(c.reportId)}</a
    >`;
  if (c.undoes !== undefined)
    return html`<a href="#correction-${String(c.undoes)}">${t.correctionUndoes(c.undoes)}</a>`;
  if (c.fromEmuCode !== undefined)
    return html`${c.fromEmuCode} →
      <a href="/emu/${encodeURIComponent(c.intoEmuCode ?? '')}">${c.intoEmuCode ?? ''}</a>`;
  if (c.source !== undefined) return html`${c.source} ${c.ref ?? ''}`;
  return html`${t.correctionSightings(c.observationIds?.length ?? 0)}`;
}

function entry(t: Messages, c: Correction, browser: SignedInBrowser, csrf: string) {
  const id = String(c.id);
  return html`<li id="correction-${id}" data-correction="${id}" data-correction-kind="${c.kind}">
    <p>
      <strong>#${id} ${kindText(t, c)}</strong> · ${whatOf(t, c)}<br />
      <span class="muted"
        >${c.actor.name}, ${c.createdAt.toISOString().slice(0, 16).replace('T', ' ')} UTC</span
      >
    </p>
    <p>${c.reason}</p>
    ${
      c.undoneBy !== undefined
        ? html`<p class="muted">
            <a href="#correction-${String(c.undoneBy)}">${t.correctionUndoneBy(c.undoneBy)}</a>
          </p>`
        : ''
    }
    ${
      mayUndo(browser, c)
        ? html`<form method="post" action="${ADMIN_CORRECTIONS_PATH}/${id}/undo" class="inline">
            ${hiddenCsrf(csrf)}
            <input
              name="reason"
              required
              maxlength="1000"
              aria-label="${t.correctionUndoReason(c.id)}"
              placeholder="${t.reportReason}"
            />
            <button type="submit" class="danger">${t.correctionUndo}</button>
          </form>`
        : ''
    }
  </li>`;
}

/**
 * The corrections' audit trail as a page (/admin/corrections, newest first, `?before=ID` for the
 * next): who made each correction, when, what and why, and the undo of each; moderators and
 * administrators read it, and undo from it (see mayUndo). A plain form with the session's CSRF
 * token, as the queue's.
 */
export async function registerCorrectionsPage(
  app: ApiApp,
  deps: { db: Db; clock: () => number },
): Promise<void> {
  const { db, clock } = deps;
  await app.register(async (scope) => {
    await participationScope(scope);
    const reader = moderatorReader(ADMIN_CORRECTIONS_PATH);

    scope.get(ADMIN_CORRECTIONS_PATH, { schema: { hide: true } }, async (request, reply) => {
      const browser = await reader(request, reply);
      if (!browser) return reply;
      const raw = (request.query as Record<string, unknown>).before;
      const before = typeof raw === 'string' && /^[1-9]\d{0,15}$/.test(raw) ? Number(raw) : null;
      if (raw !== undefined && before === null)
        return sendRefusal(
          request,
          reply,
          400,
          ADMIN_CORRECTIONS_PATH,
          (t) => t.correctionsBadBefore,
          browser,
          (t) => t.correctionsTitle,
        );
      const items = await listCorrections(db, {
        limit: PAGE_SIZE,
        ...(before !== null ? { before } : {}),
      });
      const csrf = csrfToken(request, reply);
      const last = items.at(-1);
      return sendParticipationPage(
        request,
        reply,
        200,
        ADMIN_CORRECTIONS_PATH,
        (t) => ({
          title: t.correctionsTitle,
          heading: t.correctionsTitle,
          body: html`<p class="muted">${t.correctionsIntro}</p>
            ${
              items.length === 0
                ? html`<p>${t.reviewNothing}</p>`
                : html`<ol class="plain-list corrections">
                    ${items.map((c) => entry(t, c, browser, csrf))}
                  </ol>`
            }
            ${
              items.length === PAGE_SIZE && last
                ? html`<p>
                    <a href="${ADMIN_CORRECTIONS_PATH}?before=${String(last.id)}"
                      >${t.correctionsOlder}</a
                    >
                  </p>`
                : ''
            }`,
        }),
        browser,
      );
    });

    scope.post(
      `${ADMIN_CORRECTIONS_PATH}/:correctionId/undo`,
      { schema: { hide: true } },
      async (request, reply) => {
        const browser = await reader(request, reply);
        if (!browser) return reply;
        if (!formTokenOk(request, reply, ADMIN_CORRECTIONS_PATH)) return reply;
        const raw = (request.params as { correctionId: string }).correctionId;
        const id = /^[1-9]\d{0,15}$/.test(raw) ? Number(raw) : 0;
        const refuse = (status: number, message: string) =>
          sendRefusal(
            request,
            reply,
            status,
            ADMIN_CORRECTIONS_PATH,
            message,
            browser,
            (t) => t.correctionsTitle,
          );
        const [target] = id > 0 ? await listCorrections(db, { before: id + 1, limit: 1 }) : [];
        if (!target || target.id !== id) return refuse(404, `correction: no correction ${raw}`);
        if (target.kind !== 'undo' && target.undoneBy === undefined && !mayUndo(browser, target))
          return refuse(403, 'correction: only an administrator undoes this kind of correction');
        try {
          await undoCorrection(
            db,
            id,
            field(request, 'reason'),
            accountActor(browser.user),
            clock(),
          );
        } catch (err) {
          if (!(err instanceof CorrectionError)) throw err;
          // The error's message starts with the field it blames (reason, correction).
          return refuse(
            err.kind === 'not_found' ? 404 : err.kind === 'conflict' ? 409 : 400,
            err.message,
          );
        }
        return reply.redirect(ADMIN_CORRECTIONS_PATH, 303);
      },
    );
  });
}
