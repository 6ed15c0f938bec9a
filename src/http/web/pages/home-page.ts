import {
  readLatestBuiltDay,
  type BuiltDaySummary,
} from '../../../domain/records/latest-built-day.js';
import {
  readNewestRecordChanges,
  type RecordChange,
} from '../../../domain/records/record-changes.js';
import { HISTORIES_VERSION, type DataVersionRef } from '../../../shared/cache/data-versions.js';
import { ymdOfServiceDay } from '../../../shared/time/service-day.js';
import { html, type Html } from '../../html/html.js';
import { searchForm, webPage } from '../layout.js';
import { dayHref, emuHref, trainHref } from '../page-links.js';
import { sendHomeWithFavourites } from '../favourites/favourite-pages.js';
import { viewKey, type WebView } from '../web-request.js';
import type { WebRoutes } from '../web-routes.js';

/** Changes the home page lists. */
const LATEST_CHANGES = 10;

/**
 * What the home page shows moves with: any day's records ('histories': a build that writes
 * records, which is also what makes a day the latest built one, and every change of the feed)
 * and the export list ('exports': whether the day's CSV can be linked).
 */
const HOME_DEPENDS: readonly DataVersionRef[] = [HISTORIES_VERSION, { name: 'exports' }];

/** A service day as people write it (2026-08-16), the same in both languages. */
export function dayLabel(serviceDay: number): string {
  const ymd = ymdOfServiceDay(serviceDay);
  return `${ymd.slice(0, 4)}-${ymd.slice(4, 6)}-${ymd.slice(6, 8)}`;
}

/** The day's CSV as the API serves it (anonymous callers may download it). */
function csvHref(serviceDay: number): string {
  return `/api/v2/exports/daily/${ymdOfServiceDay(serviceDay)}?binary=true`;
}

function latestDay(view: WebView, day: BuiltDaySummary | undefined): Html {
  const { t } = view;
  if (!day) {
    return html`<section class="card" aria-labelledby="latest-day">
      <h2 id="latest-day">${t.homeLatestDay}</h2>
      <p>${t.homeLatestDayNone}</p>
    </section>`;
  }
  return html`<section class="card" aria-labelledby="latest-day">
    <h2 id="latest-day">${t.homeLatestDay}</h2>
    <p><a href="${dayHref(day.serviceDay)}" data-latest-day>${dayLabel(day.serviceDay)}</a></p>
    <p data-latest-counts>${t.homeLatestCounts(day.records, day.trains, day.emus)}</p>
    ${
      day.exported
        ? html`<p>
            <a class="button secondary" href="${csvHref(day.serviceDay)}" download
              >${t.downloadCsv}</a
            >
          </p>`
        : ''
    }
  </section>`;
}

function changeKind(view: WebView, change: RecordChange): string {
  const { t } = view;
  if (change.kind === 'added') return t.changeAdded;
  if (change.kind === 'removed') return t.changeRemoved;
  return t.changeUpdated;
}

function latestChanges(
  view: WebView,
  changes: readonly RecordChange[],
  codeOf: (emuId: number) => string | undefined,
): Html {
  const { t } = view;
  const items = changes.map((change) => {
    const emu = codeOf(change.emuId);
    return html`<li data-change>
      <span class="chip">${changeKind(view, change)}</span>
      <a href="${trainHref(change.trainCode)}">${change.trainCode}</a>
      ${emu === undefined ? '' : html`<a href="${emuHref(emu)}">${emu}</a>`}
      <a href="${dayHref(change.serviceDay)}">${dayLabel(change.serviceDay)}</a>
    </li>`;
  });
  return html`<section class="card" aria-labelledby="latest-changes">
    <h2 id="latest-changes">${t.homeLatestChanges}</h2>
    ${
      changes.length === 0
        ? html`<p>${t.homeLatestChangesNone}</p>`
        : html`<ul class="plain-list home-changes">
            ${items}
          </ul>`
    }
  </section>`;
}

/** GET /: the search box first, then the latest built day and the latest changes. */
export function homePage({ web, services, assets, view }: WebRoutes): void {
  const { db, emuCodes, pages } = services;
  web.get('/', async (request, reply) => {
    // The page is the same whatever its query says: the switches' links are the plain `/`.
    const v: WebView = { ...view(request), here: '/' };
    const { t } = v;
    const page = await pages.page(
      `web-home:${viewKey(v)}`,
      HOME_DEPENDS,
      async () => {
        const [day, changes] = await Promise.all([
          readLatestBuiltDay(db),
          readNewestRecordChanges(db, LATEST_CHANGES),
        ]);
        await emuCodes.load(changes.map((c) => c.emuId));
        const body = html`<p>${t.homeIntro}</p>
          ${searchForm(v, { large: true })} ${latestDay(v, day)}
          ${latestChanges(v, changes, (id) => emuCodes.code(id))}`;
        return {
          body: webPage(v, assets, {
            title: t.homeTitle,
            body,
            section: 'search',
            headerSearch: false,
          }),
          records: 0,
        };
      },
      { encoding: 'br' },
    );
    return sendHomeWithFavourites(services, request, reply, page, v);
  });
}
