import { html, type Html } from '../../html/html.js';
import { readDataVersions } from '../../../shared/cache/data-versions.js';
import { serviceDayOf, ymdOfServiceDay } from '../../../shared/time/service-day.js';
import { referenceModelsOfTrain } from '../../../domain/records/read-reference-models.js';
import { stationKnown, type StationBoardEntry } from '../../../domain/timetables/station-board.js';
import { clockTimeOfOffset } from '../../../domain/timetables/timetable-time.js';
import { didYouMean } from '../did-you-mean.js';
import { webPage } from '../layout.js';
import { emuHref, stationHref, trainHref } from '../page-links.js';
import { sendPageWithStar } from '../favourites/favourite-pages.js';
import { PageNotFoundError } from '../web-errors.js';
import { viewKey, type WebView } from '../web-request.js';
import type { WebRoutes } from '../web-routes.js';
import { dayRecords, recordsVersionText, versionNumberOf } from './day-records.js';
import {
  dayLabel,
  hrefWith,
  isoDateOf,
  pageParam,
  pager,
  pageSlice,
  queryValue,
  serviceDayParam,
} from './page-params.js';
import { reflowTable } from '../../html/reflow-table.js';

/** Trains per page of a board (a large station has a few hundred a day). */
export const STATION_PAGE_SIZE = 50;

const DAY_SECONDS = 86_400;

/** A time at the station: HH:MM of the service day, marked when it falls on the next one. */
function timeAt(view: WebView, offset: number | null, none: string): Html | string {
  if (offset === null) return html`<span class="muted">${none}</span>`;
  const time = clockTimeOfOffset(offset % DAY_SECONDS);
  return offset >= DAY_SECONDS ? view.t.stationNextDayTime(time) : time;
}

interface BoardRow {
  entry: StationBoardEntry;
  /** The number the train carries here. */
  code: string;
  models: string[];
  units: string[];
}

function boardTable(view: WebView, serviceDay: number, rows: readonly BoardRow[]): Html {
  const { t } = view;
  const date = dayLabel(view, serviceDay);
  return reflowTable({
    className: 'station-board',
    caption: t.stationBoardCaption(date),
    columns: [
      t.train,
      t.stationArrive,
      t.stationDepart,
      t.stationPlatform,
      t.stationRoute,
      t.stationReferenceModel,
      t.stationUnitsRan,
    ],
    rows: rows.map(
      ({ entry, code, models, units }) =>
        html`<tr>
          <th scope="row" data-label="${t.train}"><a href="${trainHref(code)}">${code}</a></th>
          <td data-label="${t.stationArrive}">
            ${timeAt(view, entry.arriveOffset, t.stationStartsHere)}
          </td>
          <td data-label="${t.stationDepart}">
            ${timeAt(view, entry.departOffset, t.stationEndsHere)}
          </td>
          <td data-label="${t.stationPlatform}">${entry.platformNo ?? ''}</td>
          <td data-label="${t.stationRoute}">
            <a href="${stationHref(entry.startStation)}">${entry.startStation}</a> →
            <a href="${stationHref(entry.endStation)}">${entry.endStation}</a>
          </td>
          <td data-label="${t.stationReferenceModel}">${models.join(' / ')}</td>
          <td data-label="${t.stationUnitsRan}">
            ${
              units.length === 0
                ? html`<span class="muted">${t.stationNotSeen}</span>`
                : units.map(
                    (unit, i) => html`${i > 0 ? ' + ' : ''}<a href="${emuHref(unit)}">${unit}</a>`,
                  )
            }
          </td>
        </tr>`,
    ),
  });
}

function dateSwitch(view: WebView, stationName: string, serviceDay: number): Html {
  const { t } = view;
  const href = (day: number) => hrefWith(stationHref(stationName), { date: ymdOfServiceDay(day) });
  return html`<form class="filters date-switch" action="${stationHref(stationName)}" method="get">
      <label for="station-date"
        >${t.stationDateLabel}
        <input type="date" id="station-date" name="date" value="${isoDateOf(serviceDay)}" required
      /></label>
      <button type="submit">${t.stationShowDate}</button>
    </form>
    <nav class="pager" aria-label="${t.stationOtherDays}">
      <a class="button secondary" href="${href(serviceDay - 1)}" rel="nofollow"
        >${t.stationPreviousDay}</a
      >
      <a class="button secondary" href="${href(serviceDay + 1)}" rel="nofollow"
        >${t.stationNextDay}</a
      >
    </nav>`;
}

/**
 * GET /station/{name}: a station's board of one service day (`date`, default today in
 * Shanghai), paged (`page`): the same board as GetStationTimetable, read through the same kept
 * boards and reference models (services.stationBoards, services.referenceModels), with the
 * units that ran each train that day from the day's records (services.dailyRecords).
 */
export function stationPage({ web, services, assets, view }: WebRoutes): void {
  const { db, pages, clock } = services;
  web.get<{ Params: { name: string } }>('/station/:name', async (request, reply) => {
    const v = view(request);
    const { t } = v;
    const stationName = request.params.name;
    const dateText = queryValue(v, request, 'date');
    const serviceDay =
      dateText === undefined ? serviceDayOf(clock() / 1000) : serviceDayParam(v, 'date', dateText);
    const page = pageParam(v, request);

    // The models' and the day's records' versions go into the key; the coverage's is the page
    // cache's own (read again there, after these: never older).
    const versions = await readDataVersions(db, ['reference_models:0', `records:${serviceDay}`]);
    const modelsVersion = versions.get('reference_models:0') ?? 0;
    const recordsVersion = versions.get(`records:${serviceDay}`) ?? 0;
    const key = `web-station:${viewKey(v)}:${stationName}:${serviceDay}:${page}:${modelsVersion}:${recordsVersion}`;

    const rendered = await pages.page(
      key,
      { name: 'timetables' },
      async (version) => {
        const board = await services.stationBoards.board(
          stationName,
          serviceDay,
          versionNumberOf(version),
        );
        if (board.length === 0 && !(await stationKnown(db, stationName))) {
          throw new PageNotFoundError(
            `no timetable stops at ${stationName}`,
            await didYouMean(services.search, stationName),
          );
        }
        const slice = pageSlice(v, board, page, STATION_PAGE_SIZE);
        const codesOf = (e: StationBoardEntry) => [
          ...(e.stationTrainCode ? [e.stationTrainCode] : []),
          e.trainCode,
          ...e.allCodes,
        ];
        const models = await services.referenceModels.models(
          slice.items.flatMap(codesOf),
          modelsVersion,
        );
        const unitsOf = new Map<string, string[]>();
        const records = await dayRecords(
          services,
          serviceDay,
          recordsVersionText(serviceDay, recordsVersion),
        );
        for (const record of records) {
          if (record.emuCode === '') continue;
          const units = unitsOf.get(record.trainCode) ?? [];
          if (!units.includes(record.emuCode)) units.push(record.emuCode);
          unitsOf.set(record.trainCode, units);
        }
        const rows = slice.items.map((entry): BoardRow => {
          const codes = codesOf(entry);
          const units = codes.map((c) => unitsOf.get(c)).find((u) => u !== undefined) ?? [];
          return {
            entry,
            code: codes[0]!,
            models: referenceModelsOfTrain(models, codes).map((m) => m.model),
            units: [...units].sort(),
          };
        });
        const body = html`${dateSwitch(v, stationName, serviceDay)}
        ${
          rows.length === 0
            ? html`<p class="notice">${t.stationNone}</p>`
            : html`${boardTable(v, serviceDay, rows)}
              ${pager(v, page, slice.pages, (p) =>
                hrefWith(stationHref(stationName), { date: ymdOfServiceDay(serviceDay), page: p }),
              )}`
        }`;
        return {
          body: webPage(v, assets, { title: t.stationTitle(stationName), body }),
          records: rows.length,
        };
      },
      // Any name and any date make a page: one asked for once is not kept (page-cache.ts).
      { keep: 'when-asked-again', encoding: 'br' },
    );
    return sendPageWithStar(services, request, reply, rendered, v, {
      kind: 'station',
      code: stationName,
    });
  });
}
