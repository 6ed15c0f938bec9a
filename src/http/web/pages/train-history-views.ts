import type { HistoryRecord } from '../../../domain/history/read-history.js';
import { html, type Html } from '../../html/html.js';
import { dayHref, trainHref } from '../page-links.js';
import { monthCalendar, modelTone, type CalendarDay } from '../views/month-calendar.js';
import type { WebView } from '../web-request.js';
import type { MonthRange, TrainPageData } from './train-data.js';
import { dateText, positionText, unitLink } from './train-views.js';
import { reflowTable } from '../../html/reflow-table.js';
import { seenBy } from '../views/seen-by.js';

/** The longest range one CSV download covers, in days. */
export const CSV_MAX_DAYS = 366;

const pad = (n: number) => String(n).padStart(2, '0');

/** A month as the page's `month` parameter writes it: 2026-08. */
export function monthParam(year: number, month: number): string {
  return `${year}-${pad(month)}`;
}

/** The train page at a month of its calendar (and the calendar's anchor). */
function monthHref(trainCode: string, year: number, month: number): string {
  return `${trainHref(trainCode)}?month=${monthParam(year, month)}#calendar-h`;
}

function shiftMonth(m: MonthRange, by: -1 | 1): { year: number; month: number } {
  const index = m.year * 12 + (m.month - 1) + by;
  return { year: Math.floor(index / 12), month: (index % 12) + 1 };
}

export function historySection(view: WebView, data: TrainPageData): Html {
  const { t } = view;
  const { records, more, cursor } = data.history;
  if (records.length === 0 && !cursor) {
    return html`<section class="card" aria-labelledby="history-h">
      <h2 id="history-h">${t.trainHistoryHeading}</h2>
      <p>${t.historyNone}</p>
    </section>`;
  }
  const rows = records.map(
    (r) =>
      html`<tr>
        <th scope="row" data-label="${t.serviceDay}">
          <a href="${dayHref(r.serviceDay)}">${dateText(r.serviceDay)}</a>
        </th>
        <td data-label="${t.unit}">${unitLink(data.emus, r.emuId)}${seenBy(t, r)}</td>
        <td data-label="${t.position}">${positionText(t, r.status)}</td>
      </tr>`,
  );
  const last = records[records.length - 1];
  const older =
    more && last
      ? html`<a
          class="button secondary"
          rel="next"
          href="${trainHref(data.trainCode)}?cursor=${last.serviceDay}:${last.id}#history-h"
          >${t.historyOlder}</a
        >`
      : html`<span></span>`;
  const newest = cursor
    ? html`<a class="button secondary" href="${trainHref(data.trainCode)}#history-h"
        >${t.historyNewest}</a
      >`
    : '';
  return html`<section class="card" aria-labelledby="history-h">
    <h2 id="history-h">${t.trainHistoryHeading}</h2>
    ${reflowTable({
      className: 'history',
      caption: t.historyCaption,
      columns: [t.serviceDay, t.unit, t.position],
      rows: rows,
    })}
    <nav class="pager" aria-label="${t.trainHistoryHeading}">${newest} ${older}</nav>
  </section>`;
}

/** One calendar day: the unit(s) of the day, coloured by the (first) unit's model. */
function calendarDayOf(data: TrainPageData, records: readonly HistoryRecord[]): CalendarDay {
  const emus = records.map((r) => data.emus.get(r.emuId));
  const codes = emus.map((e, i) => e?.code ?? `#${records[i]!.emuId}`);
  const model = emus.find((e) => e && e.model)?.model;
  // The label is short (the units' numbers); the name says it after the model, then the units'
  // codes in full (its visible words must be a part of its name: WCAG 2.5.3).
  const label = codes.map((c) => c.slice(c.lastIndexOf('-') + 1)).join('+');
  const description = `${model ? `${model} ` : ''}${label} (${codes.join(', ')})`;
  return {
    label,
    description,
    href: dayHref(records[0]!.serviceDay),
    ...(model ? { tone: modelTone(model) } : {}),
  };
}

export function calendarSection(view: WebView, data: TrainPageData): Html {
  const { t } = view;
  const byDay = new Map<number, HistoryRecord[]>();
  for (const r of data.monthRecords) {
    const list = byDay.get(r.serviceDay);
    if (list) list.push(r);
    else byDay.set(r.serviceDay, [r]);
  }
  const days = new Map<number, CalendarDay>();
  for (const [day, records] of byDay) days.set(day, calendarDayOf(data, records));
  const prev = shiftMonth(data.month, -1);
  const next = shiftMonth(data.month, 1);
  const todayMonth = dateText(data.today).slice(0, 7);
  const nextHref =
    monthParam(next.year, next.month) <= todayMonth
      ? { nextHref: monthHref(data.trainCode, next.year, next.month) }
      : {};
  return html`<section class="card" aria-labelledby="calendar-h">
    <h2 id="calendar-h">${t.trainCalendarHeading}</h2>
    ${monthCalendar(view, {
      year: data.month.year,
      month: data.month.month,
      days,
      caption: t.calendarCaption(t.monthTitle(data.month.year, data.month.month)),
      prevHref: monthHref(data.trainCode, prev.year, prev.month),
      ...nextHref,
    })}
  </section>`;
}

/** The CSV form: a plain GET to the download, the range defaulting to the last 30 days. */
export function csvSection(view: WebView, data: TrainPageData): Html {
  const { t } = view;
  const to = dateText(data.today);
  const from = dateText(data.today - 29);
  return html`<section class="card no-print" aria-labelledby="csv-h">
    <h2 id="csv-h">${t.trainCsvHeading}</h2>
    <p class="hint">${t.trainCsvHint(CSV_MAX_DAYS)}</p>
    <form class="filters" method="get" action="${trainHref(data.trainCode)}/history.csv">
      <label for="csv-from"
        >${t.csvFrom} <input type="date" id="csv-from" name="from" value="${from}" required
      /></label>
      <label for="csv-to"
        >${t.csvTo} <input type="date" id="csv-to" name="to" value="${to}" max="${to}" required
      /></label>
      <button type="submit">${t.downloadCsv}</button>
    </form>
  </section>`;
}
