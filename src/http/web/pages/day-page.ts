import type { FastifyRequest } from 'fastify';
import { html, type Html } from '../../html/html.js';
import { readDataVersion, recordsVersion } from '../../../shared/cache/data-versions.js';
import { readEmuFacts, type EmuFacts } from '../../../domain/emus/emu-facts.js';
import { isDayBuilt } from '../../../domain/records/read-daily-records.js';
import { webPage } from '../layout.js';
import { dayHref, emuHref, trainHref } from '../page-links.js';
import { sendPage } from '../send-page.js';
import { PageInputError } from '../web-errors.js';
import { viewKey, type WebView } from '../web-request.js';
import type { WebRoutes } from '../web-routes.js';
import type { ApiServices } from '../../app-context.js';
import { dayRecords, routeOfTimetable, type DayRecord } from './day-records.js';
import { dayCsvHref } from './days-page.js';
import {
  dayLabel,
  hrefWith,
  pageParam,
  pager,
  pageSlice,
  queryValue,
  serviceDayParam,
} from './page-params.js';
import { reflowTable } from '../../html/reflow-table.js';

/** Trains per page of a day (a day runs several thousand). */
export const DAY_PAGE_SIZE = 100;

/** What a page cache entry of an unbuilt day records: the page is then sent as a 404. */
const NOT_BUILT = -1;

/** The filters of the day page, as the query gives them ('' = any). */
interface DayFilters {
  train: string;
  model: string;
  bureau: string;
  depot: string;
}

/** One train of the day: its records (one per unit), units front first. */
interface DayTrain {
  trainCode: string;
  prefix: string;
  number: number;
  records: { record: DayRecord; facts: EmuFacts | undefined }[];
  route: { startStation: string; endStation: string } | undefined;
}

function filtersOf(view: WebView, request: FastifyRequest): DayFilters {
  const train = (queryValue(view, request, 'train') ?? '').toUpperCase();
  if (train !== '' && !/^[A-Z]{1,3}$/.test(train)) {
    throw new PageInputError('train', view.t.invalidTrainType);
  }
  return {
    train,
    model: queryValue(view, request, 'model') ?? '',
    bureau: queryValue(view, request, 'bureau') ?? '',
    depot: queryValue(view, request, 'depot') ?? '',
  };
}

/** Position bits (0x06) first: a coupled train's front unit before its rear one. */
const positionOrder = (status: number) => [1, 0, 2, 3][(status & 0x06) >> 1]!;

function trainsOf(
  services: ApiServices,
  records: readonly DayRecord[],
  facts: ReadonlyMap<number, EmuFacts>,
): DayTrain[] {
  const byCode = new Map<string, DayTrain>();
  for (const record of records) {
    let train = byCode.get(record.trainCode);
    if (!train) {
      const m = /^([A-Z]*)([0-9]*)$/.exec(record.trainCode);
      train = {
        trainCode: record.trainCode,
        prefix: m?.[1] ?? '',
        number: Number(m?.[2] ?? 0),
        records: [],
        route: routeOfTimetable(services, record.timetableId),
      };
      byCode.set(record.trainCode, train);
    }
    train.records.push({ record, facts: facts.get(record.emuId) });
  }
  const trains = [...byCode.values()];
  for (const train of trains) {
    train.records.sort(
      (a, b) =>
        positionOrder(a.record.status) - positionOrder(b.record.status) ||
        a.record.emuCode.localeCompare(b.record.emuCode),
    );
  }
  // The CSV's order: prefix, then number (G2 before G10).
  return trains.sort(
    (a, b) =>
      (a.prefix < b.prefix ? -1 : a.prefix > b.prefix ? 1 : 0) ||
      a.number - b.number ||
      a.trainCode.localeCompare(b.trainCode),
  );
}

function matches(train: DayTrain, f: DayFilters): boolean {
  if (f.train !== '' && train.prefix !== f.train) return false;
  return train.records.some(
    ({ facts }) =>
      (f.model === '' || facts?.model === f.model) &&
      (f.bureau === '' || facts?.bureau === f.bureau) &&
      (f.depot === '' || facts?.depot === f.depot),
  );
}

function statusText(view: WebView, status: number): string {
  const { t } = view;
  const words = [status & 0x01 ? t.statusConfirmed : t.statusUnconfirmed];
  const position = status & 0x06;
  if (position === 0x02) words.push(t.statusCoupled);
  if (position === 0x04) words.push(t.statusFront);
  if (position === 0x06) words.push(t.statusRear);
  if (status & 0x08) words.push(t.statusReplacement);
  return words.join(', ');
}

const distinct = (values: (string | undefined)[]) => [
  ...new Set(values.filter((x): x is string => !!x)),
];

function select(
  view: WebView,
  name: keyof DayFilters,
  label: string,
  options: string[],
  chosen: string,
): Html {
  // A chosen value the day does not have stays selectable (the address asked for it).
  const all = chosen !== '' && !options.includes(chosen) ? [chosen, ...options] : options;
  return html`<label for="day-${name}"
    >${label}
    <select id="day-${name}" name="${name}">
      <option value="">${view.t.dayFilterAll}</option>
      ${all.map(
        (o) => html`<option value="${o}" ${o === chosen ? html`selected` : ''}>${o}</option>`,
      )}
    </select></label
  >`;
}

function filterForm(view: WebView, serviceDay: number, trains: DayTrain[], f: DayFilters): Html {
  const { t } = view;
  const facts = trains.flatMap((tr) => tr.records.map((r) => r.facts));
  const sorted = (values: (string | undefined)[]) => distinct(values).sort();
  return html`<form class="filters" action="${dayHref(serviceDay)}" method="get">
    <fieldset class="filter-set">
      <legend>${t.dayFilters}</legend>
      ${select(view, 'train', t.dayFilterTrain, sorted(trains.map((tr) => tr.prefix)), f.train)}
      ${select(view, 'model', t.model, sorted(facts.map((x) => x?.model)), f.model)}
      ${select(view, 'bureau', t.bureau, sorted(facts.map((x) => x?.bureau)), f.bureau)}
      ${select(view, 'depot', t.depot, sorted(facts.map((x) => x?.depot)), f.depot)}
      <button type="submit">${t.dayFilterApply}</button>
      ${
        f.train || f.model || f.bureau || f.depot
          ? html`<a class="button secondary" href="${dayHref(serviceDay)}">${t.dayFilterClear}</a>`
          : ''
      }
    </fieldset>
  </form>`;
}

function dayTable(view: WebView, serviceDay: number, trains: readonly DayTrain[]): Html {
  const { t } = view;
  const joined = (values: (string | undefined)[]) => distinct(values).join(' / ');
  return reflowTable({
    className: 'day-records',
    caption: t.dayTableCaption(dayLabel(view, serviceDay)),
    columns: [t.train, t.units, t.model, t.bureau, t.depot, t.dayRoute, t.dayStatus],
    rows: trains.map((train) => {
      const facts = train.records.map((r) => r.facts);
      return html`<tr>
        <th scope="row" data-label="${t.train}">
          <a href="${trainHref(train.trainCode)}">${train.trainCode}</a>
        </th>
        <td data-label="${t.units}">
          ${train.records.map(
            ({ record }, i) =>
              html`${i > 0 ? ' + ' : ''}<a href="${emuHref(record.emuCode)}">${record.emuCode}</a>`,
          )}
        </td>
        <td data-label="${t.model}">${joined(facts.map((x) => x?.model))}</td>
        <td data-label="${t.bureau}">${joined(facts.map((x) => x?.bureau))}</td>
        <td data-label="${t.depot}">${joined(facts.map((x) => x?.depot))}</td>
        <td data-label="${t.dayRoute}">
          ${train.route ? t.route(train.route.startStation, train.route.endStation) : ''}
        </td>
        <td data-label="${t.dayStatus}">
          ${train.records.map((r) => statusText(view, r.record.status)).join(' / ')}
        </td>
      </tr>`;
    }),
  });
}

/**
 * GET /day/{YYYYMMDD}: a service day's records, a row per train with its units, filtered by
 * train type, model, bureau and depot, paged (`page`). Read through GetDailyRecords' own kept
 * days (services.dailyRecords) under the day's records version, the units' model, bureau and
 * depot under the register's ('emus', in the key). A built day with no records says so; an
 * unbuilt day is a 404 saying it is not built yet.
 */
export function dayPage({ web, services, assets, view }: WebRoutes): void {
  const { db, pages } = services;
  web.get<{ Params: { date: string } }>('/day/:date', async (request, reply) => {
    const v = view(request);
    const { t } = v;
    // The path holds the pages' own form only: YYYYMMDD.
    if (!/^\d{8}$/.test(request.params.date)) throw new PageInputError('date', t.invalidDate);
    const serviceDay = serviceDayParam(v, 'date', request.params.date);
    const filters = filtersOf(v, request);
    const page = pageParam(v, request);
    const emusVersion = await readDataVersion(db, { name: 'emus' });
    const key = `web-day:${viewKey(v)}:${serviceDay}:${page}:${filters.train}\u0000${filters.model}\u0000${filters.bureau}\u0000${filters.depot}:${emusVersion}`;
    const date = dayLabel(v, serviceDay);

    const rendered = await pages.page(
      key,
      recordsVersion(serviceDay),
      async (version) => {
        if (!(await isDayBuilt(db, serviceDay))) {
          const body = html`<p>${t.dayNotBuilt(date)}</p>
            <p><a href="/exports/daily">${t.dayAllDays}</a></p>`;
          return {
            body: webPage(v, assets, { title: t.dayNotBuiltTitle, body, section: 'days' }),
            records: NOT_BUILT,
          };
        }
        const records = await dayRecords(services, serviceDay, version);
        const facts = await readEmuFacts(
          db,
          records.map((r) => r.emuId),
        );
        const all = trainsOf(services, records, facts);
        const chosen = all.filter((train) => matches(train, filters));
        const slice = pageSlice(v, chosen, page, DAY_PAGE_SIZE);
        const hrefOf = (p: number) =>
          hrefWith(dayHref(serviceDay), {
            train: filters.train,
            model: filters.model,
            bureau: filters.bureau,
            depot: filters.depot,
            page: p,
          });
        const shown = chosen.reduce((n, train) => n + train.records.length, 0);
        const body = html`<nav class="pager" aria-label="${t.stationOtherDays}">
            <a class="button secondary" href="${dayHref(serviceDay - 1)}" rel="nofollow"
              >${t.stationPreviousDay}</a
            >
            <a class="button secondary" href="${dayCsvHref(serviceDay)}" download
              >${t.downloadCsv}</a
            >
            <a class="button secondary" href="${dayHref(serviceDay + 1)}" rel="nofollow"
              >${t.stationNextDay}</a
            >
          </nav>
          ${
            all.length === 0
              ? html`<p class="notice">${t.dayNone}</p>`
              : html`${filterForm(v, serviceDay, all, filters)}
                  <p>${t.dayCount(chosen.length, shown)}</p>
                  ${
                    chosen.length === 0
                      ? html`<p class="notice">${t.dayNoneMatch}</p>`
                      : html`${dayTable(v, serviceDay, slice.items)}
                        ${pager(v, page, slice.pages, hrefOf)}`
                  }`
          }
          <p><a href="/exports/daily">${t.dayAllDays}</a></p>`;
        return {
          body: webPage(v, assets, { title: t.dayTitle(date), body, section: 'days' }),
          records: slice.items.length,
        };
      },
      // Filter texts are free: a combination asked for once is not kept (page-cache.ts).
      {
        keep: filters.model || filters.bureau || filters.depot ? 'when-asked-again' : 'always',
        encoding: 'br',
      },
    );
    return sendPage(request, reply, {
      body: rendered.body as string | Buffer,
      encoding: rendered.encoding,
      etag: rendered.etag,
      status: rendered.records === NOT_BUILT ? 404 : 200,
    });
  });
}
