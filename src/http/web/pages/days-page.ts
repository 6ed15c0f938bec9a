import { etagMatches } from '../../api/http-caching.js';
import { html, type Html } from '../../html/html.js';
import {
  dailyExportIndex,
  getDailyExport,
  getDailyExportHead,
} from '../../../domain/exports/daily-export-csv.js';
import { ymdOfServiceDay } from '../../../shared/time/service-day.js';
import { webPage } from '../layout.js';
import { monthCalendar } from '../views/month-calendar.js';
import { dayHref } from '../page-links.js';
import { sendPage } from '../send-page.js';
import { PageInputError, PageNotFoundError } from '../web-errors.js';
import { viewKey, type WebView } from '../web-request.js';
import type { WebRoutes } from '../web-routes.js';
import { dayLabel, hrefWith, monthLabel, queryValue, serviceDayParam } from './page-params.js';

/** The page address of a built day's CSV: the bytes GetDailyExport sends with binary=true. */
export const dayCsvHref = (serviceDay: number): string =>
  `/exports/daily/${ymdOfServiceDay(serviceDay)}.csv`;

function wholeNumber(view: WebView, field: string, value: string | undefined, max: number) {
  if (value === undefined) return undefined;
  if (!/^[0-9]{1,4}$/.test(value) || Number(value) < 1 || Number(value) > max) {
    throw new PageInputError(field, view.t.invalidYearMonth);
  }
  return Number(value);
}

function dayList(view: WebView, serviceDays: readonly number[]): Html {
  const { t } = view;
  return html`<ul class="plain-list day-list">
    ${serviceDays.map((day) => {
      const date = dayLabel(view, day);
      return html`<li>
        <a href="${dayHref(day)}">${date}</a>
        <a class="chip" href="${dayCsvHref(day)}" aria-label="${t.daysCsvOf(date)}" download>CSV</a>
      </li>`;
    })}
  </ul>`;
}

function monthLinks(
  view: WebView,
  year: number,
  months: readonly number[],
  years: readonly number[],
): Html {
  const { t } = view;
  const others = [
    ...months.map((m) => ({ href: hrefWith('/exports/daily', { year, month: m }), y: year, m })),
    ...years
      .filter((y) => y !== year)
      .map((y) => ({ href: hrefWith('/exports/daily', { year: y }), y, m: 0 })),
  ];
  return html`<nav aria-label="${t.daysOtherMonths}">
    <h2>${t.daysOtherMonths}</h2>
    <ul class="plain-list month-list">
      ${others.map(
        (o) =>
          html`<li>
            <a href="${o.href}">${o.m === 0 ? String(o.y) : monthLabel(view, o.y, o.m)}</a>
          </li>`,
      )}
    </ul>
  </nav>`;
}

/**
 * GET /exports/daily: the built days of one month (`year` and `month`; `year` alone = its
 * latest month; neither = the latest month), each linked to its day page and its CSV, from the
 * export index of GetDailyExportIndex (dailyExportIndex) under the 'exports' data version.
 * GET /exports/daily/{YYYYMMDD}.csv: the stored CSV itself, as GetDailyExport sends it with
 * binary=true, under the pages' limit rather than the API's quota (a person downloads a few).
 */
export function daysPage({ web, services, assets, view }: WebRoutes): void {
  const { db, pages } = services;

  web.get('/exports/daily', async (request, reply) => {
    const v = view(request);
    const { t } = v;
    const year = wholeNumber(v, 'year', queryValue(v, request, 'year'), 9999);
    const month = wholeNumber(v, 'month', queryValue(v, request, 'month'), 12);
    if (month !== undefined && year === undefined) {
      throw new PageInputError('year', t.invalidYearMonth);
    }
    const key = `web-days:${viewKey(v)}:${year ?? ''}:${month ?? ''}`;
    const rendered = await pages.page(
      key,
      { name: 'exports' },
      async () => {
        let index = await dailyExportIndex(
          db,
          year,
          month ?? (year === undefined ? undefined : 12),
        );
        if (year !== undefined && month === undefined && index.availableMonths.length > 0) {
          index = await dailyExportIndex(db, year, index.availableMonths.at(-1));
        }
        const { selectedYear, selectedMonth, availableMonths, availableYears, serviceDays } = index;
        const at = availableMonths.indexOf(selectedMonth);
        const monthHref = (m: number | undefined) =>
          m === undefined
            ? undefined
            : hrefWith('/exports/daily', { year: selectedYear, month: m });
        const calendarDays = new Map(
          serviceDays.map((day) => [
            day, // The day's number is its visible text (marked as a day with an entry); the label would
            // be the same word on every day, and the link's name must hold what it shows.
            { label: '', href: dayHref(day), description: t.daysCalendarLabel },
          ]),
        );
        const body =
          availableYears.length === 0
            ? html`<p>${t.daysNone}</p>`
            : html`<p>${t.daysIntro}</p>
                <section class="card" aria-labelledby="days-month">
                  <h2 id="days-month">
                    ${t.daysMonthCaption(monthLabel(v, selectedYear, selectedMonth))}
                  </h2>
                  ${monthCalendar(v, {
                    year: selectedYear,
                    month: selectedMonth,
                    days: calendarDays,
                    prevHref: monthHref(at > 0 ? availableMonths[at - 1] : undefined),
                    nextHref: monthHref(
                      at >= 0 && at < availableMonths.length - 1
                        ? availableMonths[at + 1]
                        : undefined,
                    ),
                  })}
                  ${serviceDays.length === 0 ? html`<p>${t.daysNone}</p>` : dayList(v, serviceDays)}
                </section>
                ${monthLinks(v, selectedYear, availableMonths, availableYears)}`;
        return {
          body: webPage(v, assets, { title: t.daysTitle, body, section: 'days' }),
          records: serviceDays.length,
        };
      },
      { encoding: 'br' },
    );
    return sendPage(request, reply, {
      body: rendered.body as string | Buffer,
      encoding: rendered.encoding,
      etag: rendered.etag,
    });
  });

  web.get<{ Params: { file: string } }>('/exports/daily/:file', async (request, reply) => {
    const v = view(request);
    const m = /^(.*)\.csv$/.exec(request.params.file);
    if (!m) throw new PageNotFoundError(`no page ${request.params.file}`);
    const serviceDay = serviceDayParam(v, 'date', m[1]!);
    const none = () => new PageNotFoundError(`no export for ${ymdOfServiceDay(serviceDay)}`);
    // As GetDailyExport: the head answers a conditional request, the CSV's SHA-256 its tag.
    const head = await getDailyExportHead(db, serviceDay);
    if (!head) throw none();
    void reply.header('cache-control', 'public, no-cache').header('vary', 'Accept-Encoding');
    if (etagMatches(request.headers['if-none-match'], `"${head.sha256}"`)) {
      return reply.header('etag', `"${head.sha256}"`).code(304).send();
    }
    const stored = await getDailyExport(db, serviceDay);
    if (!stored) throw none();
    return reply
      .header('etag', `"${stored.sha256}"`)
      .header('content-type', 'text/csv; charset=utf-8')
      .header('content-disposition', `attachment; filename=${ymdOfServiceDay(serviceDay)}.csv`)
      .send(stored.content);
  });
}
