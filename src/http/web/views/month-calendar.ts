import { serviceDayFromYmd } from '../../../shared/time/service-day.js';
import { html, type Html } from '../../html/html.js';
import type { WebView } from '../web-request.js';

/** What one day of a calendar shows: a short label (a unit, a count), a link, a colour. */
export interface CalendarDay {
  label: string | Html;
  /** Where the day leads (its record, its day page); none = plain text. */
  href?: string;
  /** The colour class (modelTone) of what the day shows. */
  tone?: number;
  /** The day's full text for screen readers when the label alone is too short ("CR400AF-2001"). */
  description?: string;
}

export interface MonthCalendarOptions {
  year: number;
  /** 1-12. */
  month: number;
  /** By service day. */
  days: ReadonlyMap<number, CalendarDay>;
  /** The caption; default the month's name ("2026年8月"). */
  caption?: string;
  prevHref?: string;
  nextHref?: string;
}

/** The number of colour classes (web.css `.tone-0` .. `.tone-7`). */
export const TONES = 8;

/**
 * A model's colour class: the same model always the same colour on every page (an FNV-1a hash
 * of its name). Colour is never the only carrier: every day also names its unit or model.
 */
export function modelTone(model: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < model.length; i++) {
    hash ^= model.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash % TONES;
}

const pad = (n: number) => String(n).padStart(2, '0');

/** Monday-first weekday (0 = Monday) of a calendar date. */
function weekdayOf(year: number, month: number, day: number): number {
  return (new Date(Date.UTC(year, month - 1, day)).getUTCDay() + 6) % 7;
}

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

function dayCell(view: WebView, year: number, month: number, day: number, entry?: CalendarDay) {
  const date = view.t.dateLong(year, month, day);
  if (!entry) {
    return html`<td>
      <span class="calendar-day"><span class="day-number">${day}</span></span>
    </td>`;
  }
  const tone = entry.tone === undefined ? '' : ` tone-${entry.tone}`;
  // The name holds what the day shows, in its order (its number, its label: WCAG 2.5.3, a
  // spoken command names what is seen), then the full date and text in parentheses.
  const shown = typeof entry.label === 'string' ? entry.label : (entry.description ?? '');
  const more = entry.description !== undefined && entry.description !== shown;
  const name = `${day} ${shown} (${date}${more ? `: ${entry.description}` : ''})`;
  const inner = html`<span class="day-number" aria-hidden="true">${day}</span>
    <span class="day-label" aria-hidden="true">${entry.label}</span>`;
  return entry.href
    ? html`<td class="has-entry${tone}">
        <a class="calendar-day" href="${entry.href}" aria-label="${name}">${inner}</a>
      </td>`
    : html`<td class="has-entry${tone}">
        <span class="calendar-day" role="img" aria-label="${name}">${inner}</span>
      </td>`;
}

/**
 * One month as a table (a caption naming the month, weekday headers, a row per week, Monday
 * first), each day with what it shows. Complete without script: every day with an entry is a
 * link, reached with Tab, named in full for screen readers ("16 2001 (2026年8月16日: CR400AF-2001)");
 * with script, the arrow keys move between days (client/calendar-keys.ts, `data-calendar`).
 */
export function monthCalendar(view: WebView, options: MonthCalendarOptions): Html {
  const { t } = view;
  const { year, month } = options;
  const first = weekdayOf(year, month, 1);
  const count = daysInMonth(year, month);
  const weeks: Html[] = [];
  let cells: Html[] = [];
  for (let i = 0; i < first; i++) cells.push(html`<td></td>`);
  for (let day = 1; day <= count; day++) {
    const serviceDay = serviceDayFromYmd(`${year}${pad(month)}${pad(day)}`);
    cells.push(dayCell(view, year, month, day, options.days.get(serviceDay)));
    if (cells.length === 7) {
      weeks.push(
        html`<tr>
          ${cells}
        </tr>`,
      );
      cells = [];
    }
  }
  if (cells.length > 0) {
    while (cells.length < 7) cells.push(html`<td></td>`);
    weeks.push(
      html`<tr>
        ${cells}
      </tr>`,
    );
  }
  const headers = [0, 1, 2, 3, 4, 5, 6].map(
    (i) => html`<th scope="col"><abbr title="${t.weekdayLong(i)}">${t.weekdayShort(i)}</abbr></th>`,
  );
  const nav =
    options.prevHref || options.nextHref
      ? html`<p class="pager calendar-pager">
          ${
            options.prevHref
              ? html`<a class="button secondary" href="${options.prevHref}">${t.previousMonth}</a>`
              : html`<span></span>`
          }
          ${
            options.nextHref
              ? html`<a class="button secondary" href="${options.nextHref}">${t.nextMonth}</a>`
              : ''
          }
        </p>`
      : '';
  return html`<div class="calendar" data-calendar>
    <table>
      <caption>
        ${options.caption ?? t.monthTitle(year, month)}
      </caption>
      <thead>
        <tr>
          ${headers}
        </tr>
      </thead>
      <tbody>
        ${weeks}
      </tbody>
    </table>
    <p class="hint">${t.calendarKeys}</p>
    ${nav}
  </div>`;
}

/** The months (oldest first) that a set of service days spans, for one calendar each. */
export function monthsOf(serviceDays: Iterable<number>, ymdOf: (day: number) => string) {
  const seen = new Map<string, { year: number; month: number }>();
  for (const day of serviceDays) {
    const ymd = ymdOf(day);
    const year = Number(ymd.slice(0, 4));
    const month = Number(ymd.slice(4, 6));
    seen.set(`${year}${pad(month)}`, { year, month });
  }
  return [...seen.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([, m]) => m);
}
