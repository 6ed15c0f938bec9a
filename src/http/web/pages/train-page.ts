import { participationLinks } from '../participation/participation-links.js';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { alertSubscribeHref } from '../alert-subscribe-page.js';
import { stringify } from 'csv-stringify/sync';
import { isKnownTrain } from '../../../domain/trains/known-train.js';
import { MalformedTrainCodeError, normalizeTrainCode } from '../../../domain/trains/train-code.js';
import {
  CIRCULATIONS_VERSION,
  HISTORIES_VERSION,
  type DataVersionRef,
} from '../../../shared/cache/data-versions.js';
import {
  serviceDayFromYmd,
  serviceDayOf,
  ymdOfServiceDay,
} from '../../../shared/time/service-day.js';
import { html } from '../../html/html.js';
import { didYouMean } from '../did-you-mean.js';
import { webPage } from '../layout.js';
import { trainHref } from '../page-links.js';
import { sendCsvFile } from '../send-page.js';
import { sendPageWithStar } from '../favourites/favourite-pages.js';
import { PageInputError, PageNotFoundError } from '../web-errors.js';
import { viewKey, type WebView } from '../web-request.js';
import type { WebRoutes } from '../web-routes.js';
import { readTrainHistoryCsv } from './train-csv.js';
import { readTrainPage, type HistoryCursor, type MonthRange } from './train-data.js';
import {
  calendarSection,
  CSV_MAX_DAYS,
  csvSection,
  historySection,
  monthParam,
} from './train-history-views.js';
import {
  circulationSection,
  predictionSection,
  timetableSection,
  unitsSection,
} from './train-views.js';

/**
 * What the train page shows moves with: the histories first (the kept histories' version, see
 * train-data.ts), then the timetables, trains' reference models, the unit register (models) and
 * the circulations. Today's service day is in the page's key (the timetable in force, the
 * prediction and the circulation's times are today's).
 */
const TRAIN_PAGE_VERSIONS: readonly DataVersionRef[] = [
  HISTORIES_VERSION,
  { name: 'timetables' },
  { name: 'reference_models' },
  { name: 'emus' },
  CIRCULATIONS_VERSION,
];

type Query = Record<string, string | string[] | undefined>;

/** A query parameter given once (repeated or absent: undefined; repeated is refused by callers). */
function single(query: Query, name: string): string | undefined {
  const value = query[name];
  if (Array.isArray(value)) throw new PageInputError(name, 'must be given once');
  return value;
}

/**
 * The train number of the path, canonical; a non-canonical spelling (g1, Ｇ１) is answered with
 * a 301 to the canonical address (the query kept); a string that is no train number is a 404.
 */
async function canonicalTrain(
  routes: WebRoutes,
  request: FastifyRequest,
  reply: FastifyReply,
  written: string,
  tail: string,
): Promise<string | undefined> {
  let code: string;
  try {
    code = normalizeTrainCode(written);
  } catch (err) {
    if (!(err instanceof MalformedTrainCodeError)) throw err;
    throw new PageNotFoundError(
      `no train ${written}`,
      await didYouMean(routes.services.search, written),
    );
  }
  if (code !== written) {
    const at = request.url.indexOf('?');
    const query = at === -1 ? '' : request.url.slice(at);
    void reply
      .header('cache-control', 'public, max-age=3600')
      .redirect(`${trainHref(code)}${tail}${query}`, 301);
    return undefined;
  }
  return code;
}

function cursorOf(text: string | undefined, t: WebView['t']): HistoryCursor | undefined {
  if (text === undefined || text === '') return undefined;
  const m = /^(\d{1,9}):(\d{1,15})$/.exec(text);
  if (!m) throw new PageInputError('cursor', t.badCursor);
  return { serviceDay: Number(m[1]), id: Number(m[2]), text };
}

function monthRangeOf(year: number, month: number): MonthRange {
  const first = serviceDayFromYmd(`${year}${String(month).padStart(2, '0')}01`);
  const next = month === 12 ? { y: year + 1, m: 1 } : { y: year, m: month + 1 };
  const firstOfNext = serviceDayFromYmd(`${next.y}${String(next.m).padStart(2, '0')}01`);
  return { year, month, firstDay: first, lastDay: firstOfNext - 1 };
}

function monthOf(text: string | undefined, today: number, t: WebView['t']): MonthRange {
  if (text === undefined || text === '') {
    const ymd = ymdOfServiceDay(today);
    return monthRangeOf(Number(ymd.slice(0, 4)), Number(ymd.slice(4, 6)));
  }
  const m = /^(\d{4})-(\d{2})$/.exec(text);
  const year = Number(m?.[1]);
  const month = Number(m?.[2]);
  if (!m || year < 2000 || year > 2999 || month < 1 || month > 12) {
    throw new PageInputError('month', t.badMonth);
  }
  return monthRangeOf(year, month);
}

/** A YYYY-MM-DD date of the CSV form as a service day; the field named when it is not one. */
function dateParam(query: Query, name: 'from' | 'to', t: WebView['t']): number {
  const value = single(query, name);
  if (value === undefined || value === '') throw new PageInputError(name, t.csvMissing);
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!m) throw new PageInputError(name, t.csvBadDate);
  try {
    const day = serviceDayFromYmd(`${m[1]}${m[2]}${m[3]}`);
    if (ymdOfServiceDay(day) !== `${m[1]}${m[2]}${m[3]}`) throw new Error('not a day');
    return day;
  } catch {
    throw new PageInputError(name, t.csvBadDate);
  }
}

/**
 * GET /train/{code}: a train's units today and on its latest day, its timetable, circulation,
 * prediction, history (a paged list and a month calendar) and a CSV download of its history
 * (GET /train/{code}/history.csv?from=YYYY-MM-DD&to=YYYY-MM-DD).
 */
export function trainPage(routes: WebRoutes): void {
  const { web, services, assets, view } = routes;

  web.get('/train/:code', async (request, reply) => {
    const v = view(request);
    const { t } = v;
    const written = (request.params as { code: string }).code;
    const trainCode = await canonicalTrain(routes, request, reply, written, '');
    if (trainCode === undefined) return reply;
    const query = request.query as Query;
    const cursor = cursorOf(single(query, 'cursor'), t);
    const today = serviceDayOf(services.clock() / 1000);
    const month = monthOf(single(query, 'month'), today, t);
    const key = `web-train:${trainCode}:${viewKey(v)}:${today}:${cursor?.text ?? ''}:${monthParam(month.year, month.month)}`;
    const page = await services.pages.page(
      key,
      TRAIN_PAGE_VERSIONS,
      async (version) => {
        const data = await readTrainPage(services, { trainCode, today, version, cursor, month });
        const body = html`<p class="notify-me">
            <a href="${alertSubscribeHref('train', trainCode)}">${t.notifyMe}</a>
          </p>
          <div class="train-page">
            ${unitsSection(v, data)} ${timetableSection(v, data)} ${circulationSection(v, data)}
            ${predictionSection(v, data)} ${historySection(v, data)} ${calendarSection(v, data)}
            ${csvSection(v, data)} ${participationLinks(v.t, { train: trainCode })}
          </div>`;
        const known =
          data.latest !== undefined ||
          data.timetable !== undefined ||
          data.circulation !== undefined;
        return {
          body: webPage(v, assets, {
            title: t.trainTitle(trainCode),
            description: t.trainDescription(trainCode),
            body,
          }),
          records: known ? 1 : 0,
        };
      },
      // The plain page is asked for again and again; a page of the history or a month (any
      // cursor, any month) is kept once asked for twice.
      { keep: cursor || query.month !== undefined ? 'when-asked-again' : 'always', encoding: 'br' },
    );
    // As GetTrainHistory: whether a number is known is asked each time, never kept.
    if (page.records === 0 && !(await isKnownTrain(services.db, trainCode))) {
      throw new PageNotFoundError(
        `no train ${trainCode}`,
        await didYouMean(services.search, trainCode),
      );
    }
    return sendPageWithStar(services, request, reply, page, v, { kind: 'train', code: trainCode });
  });

  web.get('/train/:code/history.csv', async (request, reply) => {
    const { t } = view(request);
    const written = (request.params as { code: string }).code;
    const trainCode = await canonicalTrain(routes, request, reply, written, '/history.csv');
    if (trainCode === undefined) return reply;
    const query = request.query as Query;
    const from = dateParam(query, 'from', t);
    const to = dateParam(query, 'to', t);
    if (from > to) throw new PageInputError('from', t.csvFromAfterTo);
    if (to - from + 1 > CSV_MAX_DAYS) throw new PageInputError('to', t.csvTooLong(CSV_MAX_DAYS));
    if (!(await isKnownTrain(services.db, trainCode))) {
      throw new PageNotFoundError(
        `no train ${trainCode}`,
        await didYouMean(services.search, trainCode),
      );
    }
    const file = await services.pages.page(
      `web-train-csv:${trainCode}:${from}:${to}`,
      HISTORIES_VERSION,
      async (version) => {
        const rows = await readTrainHistoryCsv(services, { trainCode, from, to, version });
        // With a byte-order mark, as the daily export (spreadsheets then read UTF-8).
        return {
          body: `\uFEFF${stringify(rows, { record_delimiter: '\n' })}`,
          records: rows.length,
        };
      },
      { keep: 'when-asked-again' },
    );
    const name = `${trainCode}-${ymdOfServiceDay(from)}-${ymdOfServiceDay(to)}.csv`;
    return sendCsvFile(request, reply, name, file);
  });
}
