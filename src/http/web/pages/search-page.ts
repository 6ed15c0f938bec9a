import type { FastifyRequest } from 'fastify';
import type { SearchItem, SearchItemType } from '../../../domain/search/search-index.js';
import { html, type Html } from '../../html/html.js';
import { webPage } from '../layout.js';
import { searchItemHref } from '../page-links.js';
import { sendPage } from '../send-page.js';
import { PageInputError } from '../web-errors.js';
import type { WebView } from '../web-request.js';
import type { WebRoutes } from '../web-routes.js';

/** Longest query (characters): the box's own maxlength, and the API's /search limit. */
export const MAX_QUERY_LENGTH = 64;
/** Hits the results page lists (the API's largest page). */
const RESULTS_LIMIT = 50;
/** Suggestions under the box while typing. */
const SUGGESTIONS_LIMIT = 8;

/** What `q` said: nothing to look up, a query, or why it cannot be one. */
type QueryParam =
  | { kind: 'empty' }
  | { kind: 'query'; q: string }
  | { kind: 'invalid'; why: (view: WebView) => string };

function queryParam(request: FastifyRequest): QueryParam {
  const q = (request.query as Record<string, unknown> | undefined)?.q;
  if (Array.isArray(q)) return { kind: 'invalid', why: (v) => v.t.searchQueryTwice };
  if (typeof q !== 'string' || q.trim() === '') return { kind: 'empty' };
  if (q.length > MAX_QUERY_LENGTH) {
    return { kind: 'invalid', why: (v) => v.t.searchQueryTooLong(MAX_QUERY_LENGTH) };
  }
  return { kind: 'query', q: q.trim() };
}

/**
 * The hit a query clearly means, if any: its one exact match (`G1` among G1, G10, G11...), or
 * its only hit. Two exact matches (a unit number two models share, both numbers of a paired
 * run) are a list to choose from.
 */
export function clearHit(items: readonly SearchItem[]): SearchItem | undefined {
  const exact = items.filter((item) => item.match === 'exact');
  if (exact.length === 1) return exact[0];
  if (exact.length === 0 && items.length === 1) return items[0];
  return undefined;
}

const GROUPS: readonly SearchItemType[] = ['train', 'emu', 'station'];

function groupHeading(view: WebView, type: SearchItemType): string {
  const { t } = view;
  return type === 'train' ? t.resultsTrains : type === 'emu' ? t.resultsEmus : t.resultsStations;
}

function resultItem(item: SearchItem): Html {
  return html`<li>
    <a href="${searchItemHref(item)}">${item.code}</a>
    ${item.subtitle === '' ? '' : html`<span class="muted">${item.subtitle}</span>`}
    ${item.tags.map((tag) => html`<span class="chip">${tag}</span>`)}
  </li>`;
}

function resultsBody(view: WebView, q: string, items: readonly SearchItem[]): Html {
  const { t } = view;
  if (items.length === 0) {
    return html`<p data-results-none>${t.resultsNone(q)}</p>
      <p><a href="/">${t.backHome}</a></p>`;
  }
  const groups = GROUPS.map((type) => {
    const hits = items.filter((item) => item.type === type);
    if (hits.length === 0) return html``;
    return html`<section class="card" aria-labelledby="results-${type}" data-results="${type}">
      <h2 id="results-${type}">${groupHeading(view, type)}</h2>
      <ul class="plain-list search-results">
        ${hits.map(resultItem)}
      </ul>
    </section>`;
  });
  return html`<p class="muted">${t.resultsCount(items.length)}</p>
    ${groups}`;
}

/**
 * GET /search?q=: the search form's answer without script. A query that clearly means one
 * train, unit or station goes to its page (303); any other lists the hits by kind. GET
 * /suggest?q=: the same search as JSON for the box's suggestions while typing (client
 * search-suggest.ts). Both read the API's search index (services.search, as /api/v2/search) and
 * count against the page limit like any page.
 */
export function searchPage({ web, services, assets, view }: WebRoutes): void {
  const { search } = services;

  web.get('/search', async (request, reply) => {
    const v = view(request);
    const param = queryParam(request);
    if (param.kind === 'empty') return reply.header('cache-control', 'no-store').redirect('/', 303);
    if (param.kind === 'invalid') throw new PageInputError('q', param.why(v));
    const { q } = param;
    const items = await search.search(q, RESULTS_LIMIT);
    const hit = clearHit(items);
    if (hit) {
      return reply.header('cache-control', 'no-store').redirect(searchItemHref(hit), 303);
    }
    return sendPage(request, reply, {
      body: webPage(v, assets, {
        title: v.t.resultsTitle(q),
        body: resultsBody(v, q, items),
        section: 'search',
        query: q,
      }),
    });
  });

  web.get('/suggest', async (request, reply) => {
    const param = queryParam(request);
    void reply
      .header('cache-control', 'no-store')
      .header('content-type', 'application/json; charset=utf-8');
    if (param.kind === 'invalid') {
      return reply.code(400).send({ error: { field: 'q', message: param.why(view(request)) } });
    }
    if (param.kind === 'empty') return reply.send({ items: [], status: '' });
    const items = await search.search(param.q, SUGGESTIONS_LIMIT);
    return reply.send({
      // What the box's live region says, in the reader's language.
      status: view(request).t.suggestionCount(items.length),
      items: items.map((item) => ({
        type: item.type,
        code: item.code,
        subtitle: item.subtitle,
        href: searchItemHref(item),
      })),
    });
  });
}
