import type { FastifyRequest } from 'fastify';
import { html, type Html } from '../../html/html.js';
import {
  InvalidServiceDateError,
  serviceDayFromYmd,
  ymdOfServiceDay,
} from '../../../shared/time/service-day.js';
import { PageInputError } from '../web-errors.js';
import type { WebView } from '../web-request.js';

/*
 * The parameters of the station and day pages (a date, a page number, filter texts), read from
 * an address a person may have typed or cut: anything malformed is a PageInputError naming the
 * parameter (a 400 page), never a 500. Also the pieces those pages share (dates as shown, the
 * pager, links that keep a query).
 */

/** Highest page number asked for: far past any day's last page, and never an absurd slice. */
export const MAX_PAGE = 10_000;

/** Longest filter text (a model, bureau or depot name is a few tens of characters). */
const MAX_TEXT = 64;

/** The query's one value of `field` (undefined when absent or empty); repeated is refused. */
export function queryValue(view: WebView, request: FastifyRequest, field: string) {
  const value = (request.query as Record<string, unknown> | undefined)?.[field];
  if (value === undefined || value === '') return undefined;
  if (typeof value !== 'string' || value.length > MAX_TEXT) {
    throw new PageInputError(field, view.t.invalidText(MAX_TEXT));
  }
  return value;
}

/** YYYYMMDD (the pages' own links) or YYYY-MM-DD (what a date input sends) as a service day. */
export function serviceDayParam(view: WebView, field: string, value: string): number {
  const ymd = /^\d{4}-\d{2}-\d{2}$/.test(value) ? value.replaceAll('-', '') : value;
  try {
    if (/^\d{8}$/.test(ymd)) {
      const day = serviceDayFromYmd(ymd);
      if (day >= 0) return day;
    }
  } catch (err) {
    if (!(err instanceof InvalidServiceDateError)) throw err;
  }
  throw new PageInputError(field, view.t.invalidDate);
}

/** `page`: absent = 1; else a whole number 1..MAX_PAGE. */
export function pageParam(view: WebView, request: FastifyRequest): number {
  const value = queryValue(view, request, 'page');
  if (value === undefined) return 1;
  if (!/^[0-9]{1,5}$/.test(value) || Number(value) < 1 || Number(value) > MAX_PAGE) {
    throw new PageInputError('page', view.t.invalidPage(MAX_PAGE));
  }
  return Number(value);
}

/** The page's slice of `items`; a page past the last (of a list that has one) is refused. */
export function pageSlice<T>(
  view: WebView,
  items: readonly T[],
  page: number,
  size: number,
): { items: T[]; pages: number } {
  const pages = Math.max(1, Math.ceil(items.length / size));
  if (page > pages) throw new PageInputError('page', view.t.pastLastPage(pages));
  return { items: items.slice((page - 1) * size, page * size), pages };
}

/** `path` with the given parameters (those undefined left out), percent-encoded. */
export function hrefWith(path: string, params: Record<string, string | number | undefined>) {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    if (value !== undefined && value !== '') query.set(name, String(value));
  }
  const text = query.toString();
  return text === '' ? path : `${path}?${text}`;
}

/** YYYY-MM-DD: a date input's value. */
export function isoDateOf(serviceDay: number): string {
  const ymd = ymdOfServiceDay(serviceDay);
  return `${ymd.slice(0, 4)}-${ymd.slice(4, 6)}-${ymd.slice(6)}`;
}

/** A service day as a reader of the page's language writes it, weekday included. */
export function dayLabel(view: WebView, serviceDay: number): string {
  // A service day is an epoch day: its UTC midnight is the calendar date itself.
  return new Intl.DateTimeFormat(view.language, {
    dateStyle: 'full',
    timeZone: 'UTC',
  }).format(new Date(serviceDay * 86_400_000));
}

/** A month as the page's language writes it (2026年8月, August 2026). */
export function monthLabel(view: WebView, year: number, month: number): string {
  return new Intl.DateTimeFormat(view.language, {
    year: 'numeric',
    month: 'long',
    timeZone: 'UTC',
  }).format(new Date(Date.UTC(year, month - 1, 1)));
}

/** Previous/next links and "page x of y" (nothing when there is one page). */
export function pager(
  view: WebView,
  page: number,
  pages: number,
  hrefOf: (page: number) => string,
): Html {
  if (pages <= 1) return html``;
  const { t } = view;
  return html`<nav class="pager" aria-label="${t.pagerLabel}">
    ${
      page > 1
        ? html`<a class="button secondary" href="${hrefOf(page - 1)}" rel="prev"
            >${t.previousPage}</a
          >`
        : html`<span></span>`
    }
    <span>${t.pageOf(page, pages)}</span>
    ${
      page < pages
        ? html`<a class="button secondary" href="${hrefOf(page + 1)}" rel="next">${t.nextPage}</a>`
        : html`<span></span>`
    }
  </nav>`;
}
