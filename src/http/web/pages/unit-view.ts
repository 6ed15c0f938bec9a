import type { EmuAllocation } from '../../../domain/emus/read-allocation.js';
import { html, type Html } from '../../html/html.js';
import { dayHref, depotHref, emuHref, trainHref } from '../page-links.js';
import { modelTone, monthCalendar, type CalendarDay } from '../views/month-calendar.js';
import type { WebView } from '../web-request.js';
import { clockTime, dateParts, isoDate } from './page-inputs.js';
import { CSV_MAX_DAYS, inRunningOrder, type UnitRecord } from './unit-data.js';
import { reflowTable } from '../../html/reflow-table.js';
import { seenBy } from '../views/seen-by.js';

/** A service day as the reader's long date. */
export function longDate(view: WebView, serviceDay: number): string {
  const { year, month, day } = dateParts(serviceDay);
  return view.t.dateLong(year, month, day);
}

function time(view: WebView, offset: number): Html {
  const { text, nextDay } = clockTime(offset);
  return nextDay ? html`${text} <span class="muted">(${view.t.nextDay})</span>` : html`${text}`;
}

function route(view: WebView, r: UnitRecord): Html | string {
  return r.timetable
    ? view.t.unitRouteValue(r.timetable.startStation, r.timetable.endStation)
    : view.t.unknown;
}

function times(view: WebView, r: UnitRecord): Html | string {
  if (!r.timetable) return view.t.unknown;
  return html`${time(view, r.timetable.startOffset)} - ${time(view, r.timetable.endOffset)}`;
}

function chips(view: WebView, r: UnitRecord): Html {
  return html`${r.coupled ? html` <span class="chip">${view.t.unitCoupled}</span>` : ''}${
    r.confirmed ? '' : html` <span class="chip">${view.t.unitUnconfirmed}</span>`
  }`;
}

function fact(label: string, value: Html | string): Html {
  return html`<dt>${label}</dt>
    <dd>${value}</dd>`;
}

/** The allocation as facts; a field the fleet import has not said is left out (core ones say "unknown"). */
export function allocationFacts(view: WebView, a: EmuAllocation): Html {
  const { t } = view;
  const known = (v: string) => (v === '' ? t.unknown : v);
  const maker = [a.trainsetManufacturer, a.trailerManufacturer]
    .filter((v, i, all) => v !== '' && all.indexOf(v) === i)
    .join(' / ');
  return html`<dl class="facts unit-facts">
    ${fact(t.model, known(a.model))}
    ${a.subModel !== '' && a.subModel !== a.model ? fact(t.unitSubModel, a.subModel) : ''}
    ${fact(t.bureau, known(a.bureau))} ${fact(t.unitTrainDepot, known(a.trainDepot))}
    ${fact(t.depot, a.depot === '' ? t.unknown : html`<a href="${depotHref(a.depot)}">${a.depot}</a>`)}
    ${
      a.designMaxSpeed > 0 || a.operatingMaxSpeed > 0
        ? fact(t.unitSpeeds, t.unitSpeedsValue(a.designMaxSpeed, a.operatingMaxSpeed))
        : ''
    }
    ${maker !== '' ? fact(t.unitMaker, maker) : ''}
    ${a.manufactureMonth !== '' ? fact(t.unitBuilt, a.manufactureMonth) : ''}
    ${
      a.tags.length > 0
        ? fact(t.unitTags, html`${a.tags.map((tag) => html`<span class="chip">${tag}</span> `)}`)
        : ''
    }
    ${a.note !== '' ? fact(t.unitNote, a.note) : ''}
    ${
      a.alias.length > 0
        ? fact(
            t.unitAliases,
            html`<span class="aliases"
              >${a.alias.map((alias) => html`<span class="chip">${alias}</span> `)}</span
            >`,
          )
        : ''
    }
  </dl>`;
}

/** The coach layout as a table (a card per coach on a phone). */
export function coachTable(view: WebView, a: EmuAllocation): Html {
  const { t } = view;
  if (a.coachLayouts.length === 0) return html`<p class="muted">${t.unitCoachesNone}</p>`;
  const rows = a.coachLayouts.map((c) => {
    const facilities = [
      c.hasPower ? t.coachPower : '',
      c.hasPantograph ? t.coachPantograph : '',
      c.hasLargeLuggageArea ? t.coachLuggage : '',
      c.hasAccessibleFacility ? t.coachAccessible : '',
    ].filter((f) => f !== '');
    return html`<tr>
      <th scope="row" data-label="${t.coachNo}">${c.coachNo}</th>
      <td data-label="${t.coachType}">${c.coachTypeName || c.coachTypeCode || t.unknown}</td>
      <td data-label="${t.coachCapacity}">${c.capacity}</td>
      <td data-label="${t.coachFacilities}">
        ${facilities.length === 0 ? '-' : facilities.map((f) => html`<span class="chip">${f}</span> `)}
      </td>
    </tr>`;
  });
  return reflowTable({
    className: 'coaches',
    columns: [t.coachNo, t.coachType, t.coachCapacity, t.coachFacilities],
    rows,
  });
}

/** Today's trains in running order. */
export function todayList(view: WebView, today: readonly UnitRecord[]): Html {
  const { t } = view;
  if (today.length === 0) return html`<p class="muted">${t.unitTodayNone}</p>`;
  return html`<ol class="plain-list circulation" aria-label="${t.unitTodayCaption}">
    ${today.map(
      (r) =>
        html`<li>
          <a href="${trainHref(r.trainCode)}">${r.trainCode}</a>${chips(view, r)}${seenBy(t, r)}
          <span class="muted">${route(view, r)} · ${times(view, r)}</span>
        </li>`,
    )}
  </ol>`;
}

/** The month's calendar: each day the unit ran, its first train and how many more. */
export function unitCalendar(
  view: WebView,
  options: {
    model: string;
    year: number;
    month: number;
    records: readonly UnitRecord[];
    prevHref?: string;
    nextHref?: string;
  },
): Html {
  const byDay = new Map<number, UnitRecord[]>();
  for (const r of options.records) {
    const list = byDay.get(r.serviceDay) ?? [];
    list.push(r);
    byDay.set(r.serviceDay, list);
  }
  const days = new Map<number, CalendarDay>();
  const tone = options.model === '' ? undefined : modelTone(options.model);
  for (const [day, records] of byDay) {
    const codes = inRunningOrder(records).map((r) => r.trainCode);
    const label = view.t.unitTrainsOfDay(codes[0]!, codes.length - 1);
    days.set(day, {
      label,
      description: view.t.unitTrainsOfDayLong(codes.join(', ')),
      href: dayHref(day),
      ...(tone === undefined ? {} : { tone }),
    });
  }
  return monthCalendar(view, {
    year: options.year,
    month: options.month,
    days,
    ...(options.prevHref ? { prevHref: options.prevHref } : {}),
    ...(options.nextHref ? { nextHref: options.nextHref } : {}),
  });
}

/** The history list, newest first, with its pager. */
export function historyTable(
  view: WebView,
  records: readonly UnitRecord[],
  pager: { newestHref?: string; olderHref?: string },
): Html {
  const { t } = view;
  if (records.length === 0) return html`<p class="muted">${t.unitHistoryNone}</p>`;
  const rows = records.map(
    (r) =>
      html`<tr data-service-day="${r.serviceDay}">
        <th scope="row" data-label="${t.serviceDay}">
          <a href="${dayHref(r.serviceDay)}"
            ><time datetime="${isoDate(r.serviceDay)}">${longDate(view, r.serviceDay)}</time></a
          >
        </th>
        <td data-label="${t.train}">
          <a href="${trainHref(r.trainCode)}">${r.trainCode}</a>${chips(view, r)}${seenBy(t, r)}
        </td>
        <td data-label="${t.unitRoute}">${route(view, r)}</td>
        <td data-label="${t.unitTimes}">${times(view, r)}</td>
      </tr>`,
  );
  const pagerLinks =
    pager.newestHref || pager.olderHref
      ? html`<nav class="pager" aria-label="${t.unitHistory}">
          ${pager.newestHref ? html`<a class="button secondary" href="${pager.newestHref}">${t.unitHistoryNewest}</a>` : html`<span></span>`}
          ${pager.olderHref ? html`<a class="button secondary" href="${pager.olderHref}" rel="next">${t.unitHistoryOlder}</a>` : ''}
        </nav>`
      : '';
  return html`${reflowTable({
    className: 'history',
    columns: [t.serviceDay, t.train, t.unitRoute, t.unitTimes],
    rows: rows,
  })}
  ${pagerLinks}`;
}

/** The CSV form: a plain GET of the range to /emu/{code}/history.csv. */
export function csvForm(view: WebView, code: string, today: number): Html {
  const { t } = view;
  const first = today - 29;
  return html`<form class="filters" action="${emuHref(code)}/history.csv" method="get">
    <label for="csv-from"
      >${t.from}
      <input
        type="date"
        id="csv-from"
        name="from"
        value="${isoDate(first)}"
        required
        aria-describedby="csv-hint"
      />
    </label>
    <label for="csv-to"
      >${t.to}
      <input
        type="date"
        id="csv-to"
        name="to"
        value="${isoDate(today)}"
        required
        aria-describedby="csv-hint"
      />
    </label>
    <button type="submit">${t.downloadCsv}</button>
    <p class="hint" id="csv-hint">${t.unitCsvHint(CSV_MAX_DAYS)}</p>
  </form>`;
}
