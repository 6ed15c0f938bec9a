import { participationLinks } from '../participation/participation-links.js';
import { stringify } from 'csv-stringify/sync';
import { alertSubscribeHref } from '../alert-subscribe-page.js';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { parseEmuCode } from '../../../domain/emus/normalize-emu-code.js';
import { serviceDayFromYmd, serviceDayOf } from '../../../shared/time/service-day.js';
import { html } from '../../html/html.js';
import { didYouMean } from '../did-you-mean.js';
import { webPage } from '../layout.js';
import { emuHref } from '../page-links.js';
import { sendCsvFile } from '../send-page.js';
import { sendPageWithStar } from '../favourites/favourite-pages.js';
import { PageInputError } from '../web-errors.js';
import { viewKey } from '../web-request.js';
import type { WebRoutes } from '../web-routes.js';
import { cursorParam, dateParam, dateParts, isoDate, monthParam, queryOf } from './page-inputs.js';
import {
  allocationOf,
  CSV_MAX_DAYS,
  findUnit,
  historyPage,
  inRunningOrder,
  recordsBetween,
  UNIT_DEPENDS,
} from './unit-data.js';
import {
  allocationFacts,
  coachTable,
  csvForm,
  historyTable,
  longDate,
  todayList,
  unitCalendar,
} from './unit-view.js';

const pad = (n: number) => String(n).padStart(2, '0');
const monthText = (m: { year: number; month: number }) => `${m.year}-${pad(m.month)}`;

function shiftMonth(m: { year: number; month: number }, by: number) {
  const index = m.year * 12 + (m.month - 1) + by;
  return { year: Math.floor(index / 12), month: (index % 12) + 1 };
}

function lastDayOf(m: { year: number; month: number }): number {
  const next = shiftMonth(m, 1);
  return serviceDayFromYmd(`${next.year}${pad(next.month)}01`) - 1;
}

/**
 * GET /emu/{code}: a unit's allocation, coaches, today's trains in running order, a month's
 * calendar and its history newest first; GET /emu/{code}/history.csv: a range of its history.
 * The unit is found as GetEmuAllocation finds it (its code, any alias, any accepted written
 * form); a form other than its canonical code is a 301 to the canonical address.
 */
export function unitPage({ web, services, assets, view }: WebRoutes): void {
  // A unit's code mistyped in its last digits (CR400AF-2009) matches nothing as it stands: its
  // prefixes are asked for in turn (CR400AF-200, ...) until some unit matches, down to a model.
  const suggest = async (text: string) => {
    let query = text;
    try {
      query = parseEmuCode(text).code;
    } catch {
      // Not of a unit code's form: looked up as written.
    }
    for (let length = query.length; length >= Math.min(query.length, 5); length--) {
      const found = await didYouMean(services.search, query.slice(0, length));
      if (found.length > 0) return found;
    }
    return [];
  };

  /** The unit named in the path, or a redirect to its canonical address. */
  async function unitOf(request: FastifyRequest, reply: FastifyReply, suffix = '') {
    const written = (request.params as { code: string }).code;
    const unit = await findUnit(services, written, suggest);
    if (unit.code !== written) {
      void reply.redirect(`${emuHref(unit.code)}${suffix}${queryOf(request.url)}`, 301);
      return undefined;
    }
    return unit;
  }

  web.get('/emu/:code', async (request, reply) => {
    const unit = await unitOf(request, reply);
    if (!unit) return reply;
    const query = request.query as Record<string, unknown>;
    const cursor = cursorParam(query, 'cursor');
    const today = serviceDayOf(Math.floor(services.clock() / 1000));
    const thisMonth = { year: dateParts(today).year, month: dateParts(today).month };
    const month = monthParam(query, 'month') ?? thisMonth;
    if (month.year * 12 + month.month > thisMonth.year * 12 + thisMonth.month) {
      throw new PageInputError('month', `expected ${monthText(thisMonth)} or earlier`);
    }
    const v = view(request);
    const { t } = v;
    const key = `web-emu:${unit.emuId}:${today}:${monthText(month)}:${cursor?.text ?? ''}:${viewKey(v)}`;
    const page = await services.pages.page(
      key,
      UNIT_DEPENDS,
      async (version) => {
        const firstOfMonth = serviceDayFromYmd(`${month.year}${pad(month.month)}01`);
        const [allocation, history, monthRecords, todayRecords] = await Promise.all([
          allocationOf(services, unit.emuId),
          historyPage(services, unit.emuId, version, cursor ? { before: cursor } : {}),
          recordsBetween(services, unit.emuId, version, firstOfMonth, lastDayOf(month), 'month'),
          recordsBetween(services, unit.emuId, version, today, today, 'month'),
        ]);
        const here = emuHref(unit.code);
        const monthHref = (m: { year: number; month: number }) => `${here}?month=${monthText(m)}`;
        const next = shiftMonth(month, 1);
        const isCurrent = next.year * 12 + next.month > thisMonth.year * 12 + thisMonth.month;
        const body = html`<p class="notify-me">
            <a href="${alertSubscribeHref('emu', unit.code)}">${t.notifyMe}</a>
          </p>
          ${participationLinks(t, { emu: unit.code })}
          <p>
            <span class="chip">${allocation.model || t.unknown}</span>
            <span class="muted">${allocation.bureau} ${allocation.depot}</span>
          </p>
          <section class="card" aria-labelledby="unit-today">
            <h2 id="unit-today">${t.unitToday(longDate(v, today))}</h2>
            ${todayList(v, inRunningOrder(todayRecords))}
          </section>
          <section class="card" aria-labelledby="unit-allocation">
            <h2 id="unit-allocation">${t.unitAllocation}</h2>
            ${allocationFacts(v, allocation)}
          </section>
          <section class="card" aria-labelledby="unit-coaches">
            <h2 id="unit-coaches">${t.unitCoaches}</h2>
            ${coachTable(v, allocation)}
          </section>
          <section class="card" aria-labelledby="unit-calendar">
            <h2 id="unit-calendar">${t.unitCalendar}</h2>
            ${unitCalendar(v, {
              model: allocation.model,
              year: month.year,
              month: month.month,
              records: monthRecords,
              prevHref: monthHref(shiftMonth(month, -1)),
              ...(isCurrent ? {} : { nextHref: monthHref(next) }),
            })}
          </section>
          <section class="card" aria-labelledby="unit-history">
            <h2 id="unit-history">${t.unitHistory}</h2>
            ${historyTable(v, history.records, {
              ...(cursor ? { newestHref: here } : {}),
              ...(history.nextCursor
                ? { olderHref: `${here}?cursor=${encodeURIComponent(history.nextCursor)}` }
                : {}),
            })}
          </section>
          <section class="card" aria-labelledby="unit-csv">
            <h2 id="unit-csv">${t.unitCsv}</h2>
            ${csvForm(v, unit.code, today)}
          </section>`;
        const text = webPage(v, assets, {
          title: t.unitTitle(unit.code),
          description: t.unitDescription(unit.code),
          section: 'fleet',
          body,
        });
        return { body: text, records: history.records.length };
      },
      { encoding: 'br' },
    );
    return sendPageWithStar(services, request, reply, page, v, { kind: 'emu', code: unit.code });
  });

  web.get('/emu/:code/history.csv', async (request, reply) => {
    const unit = await unitOf(request, reply, '/history.csv');
    if (!unit) return reply;
    const query = request.query as Record<string, unknown>;
    const from = dateParam(query, 'from');
    const to = dateParam(query, 'to');
    if (from === undefined) throw new PageInputError('from', 'give the first day, YYYY-MM-DD');
    if (to === undefined) throw new PageInputError('to', 'give the last day, YYYY-MM-DD');
    if (to < from) throw new PageInputError('to', `must not be before from (${isoDate(from)})`);
    if (to - from + 1 > CSV_MAX_DAYS) {
      throw new PageInputError('to', `at most ${CSV_MAX_DAYS} days from from (${isoDate(from)})`);
    }
    const key = `web-emu-csv:${unit.emuId}:${from}:${to}`;
    const page = await services.pages.page(
      key,
      UNIT_DEPENDS,
      async (version) => {
        const records = await recordsBetween(services, unit.emuId, version, from, to, 'range');
        const rows = records.map((r) => [
          isoDate(r.serviceDay),
          r.trainCode,
          unit.code,
          r.timetable?.startStation ?? '',
          r.timetable?.endStation ?? '',
          r.timetable?.startOffset ?? '',
          r.timetable?.endOffset ?? '',
          r.confirmed ? 'true' : 'false',
          r.coupled ? 'true' : 'false',
        ]);
        const csv = stringify(rows, {
          header: true,
          columns: [
            'service_day',
            'train_code',
            'emu_code',
            'start_station',
            'end_station',
            'start_offset',
            'end_offset',
            'confirmed',
            'coupled',
          ],
        });
        return { body: csv, records: records.length };
      },
      { keep: 'when-asked-again' },
    );
    const name = `${unit.code.replace(/[^A-Za-z0-9-]/g, '_')}-${isoDate(from)}-${isoDate(to)}.csv`;
    return sendCsvFile(request, reply, name, page);
  });
}
