import { parse as parseCsv } from 'csv-parse/sync';
import type { LightMyRequestResponse as Response } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueCredential } from '../../src/domain/accounts/credentials.js';
import { scopesOfRole } from '../../src/domain/accounts/scopes.js';
import { CLIENT_NAME_MAX_LENGTH } from '../../src/domain/oauth/client-input.js';
import type { User } from '../../src/domain/accounts/users.js';
import type { ApiApp } from '../../src/http/api/app.js';
import { makeApp } from '../api/helpers/api-harness.js';
import { shanghaiClock } from '../api/helpers/fixture-week.js';
import { unsafeMarkup, type HtmlSafetyOptions } from '../helpers/html-safety.js';
import { useTestDatabase } from '../helpers/test-db.js';
import { CALLBACK, makeClient, makeUser } from '../oauth/oauth-fixtures.js';
import {
  clip,
  DAY,
  fleetValue,
  ISO_DAY,
  loadHostileNetwork,
  LONG_TRAIN,
  N,
  station,
  trainCode,
  unitCode,
  VECTORS,
} from './helpers/hostile-network.js';
import { GENEROUS_LIMITS } from './helpers/web-harness.js';

/*
 * Every OWASP XSS filter-evasion vector through every way into a page of the web app and the
 * account, sign-in and consent pages on its layout: stored in every text a data file can set
 * (helpers/hostile-network.ts), in every path segment and query parameter the pages read, in
 * the language and scheme switches, Accept-Language and the cookies. Each HTML answer is read
 * as a browser would (unsafeMarkup): nothing may run but the page's own frame, recognised by
 * its exact attributes. No answer is a 500; a refused input is a 4xx page naming its field;
 * /suggest answers JSON and the CSVs carry the vectors as CSV text.
 */

const t = useTestDatabase();
let app: ApiApp;
/** An app whose page limit refuses every page after the first: its 429 page. */
let limited: ApiApp;
/** A signed-in browser's session cookie. */
let session: string;
/** The consent page of client i (its name and description vector i), and its owner's cookie. */
const consents: { url: string; headers: { cookie: string } }[] = [];

const e = encodeURIComponent;
const withQuery = (url: string, query: string) => `${url}${url.includes('?') ? '&' : '?'}${query}`;

// ---- The page's own frame, by exact attributes --------------------------------------------

/** An element's attributes as written by the html tag (lowercase names, "-quoted values), else undefined. */
function attributesOf(text: string): Map<string, string | true> | undefined {
  const out = new Map<string, string | true>();
  const rest = text.replace(/\s*\/$/, '');
  const one = /\s+([a-z][a-z-]*)(?:="([^"<>]*)")?/y;
  let at = 0;
  while (at < rest.length) {
    one.lastIndex = at;
    const m = one.exec(rest);
    if (!m || out.has(m[1]!)) return undefined;
    out.set(m[1]!, m[2] ?? true);
    at = one.lastIndex;
  }
  return out;
}

type Rule = Record<string, RegExp | true>;

/** The attributes are exactly the rule's (names, and values matching in full). */
function exactly(attributes: Map<string, string | true>, rule: Rule): boolean {
  if (attributes.size !== Object.keys(rule).length) return false;
  return Object.entries(rule).every(([name, want]) => {
    const got = attributes.get(name);
    if (got === undefined) return false;
    if (want === true) return got === true;
    return typeof got === 'string' && new RegExp(`^(?:${want.source})$`).test(got);
  });
}

/** At most the rule's attributes (a form's input has some of its optional ones). */
function within(attributes: Map<string, string | true>, rule: Rule, required: string[]): boolean {
  if (!required.every((name) => attributes.has(name))) return false;
  return [...attributes].every(([name, got]) => {
    const want = rule[name];
    if (want === undefined) return false;
    if (want === true) return got === true;
    return typeof got === 'string' && new RegExp(`^(?:${want.source})$`).test(got);
  });
}

const ASSET = (ext: string) => new RegExp(`/assets/web/[\\w.-]+\\.${ext}`);
/** Any escaped text: no quote, no markup (attributesOf already refuses them). */
const TEXT = /[^"<>]*/;
/** A path of this site (percent-encoded), never another origin's (`//host`). */
const PATH = /\/(?![/\\])(?:[\w%.~/!*()-]|&#39;|&amp;)*/;

const FRAME_RULES: Record<string, Rule[]> = {
  link: [
    { rel: /stylesheet/, href: ASSET('css') },
    { rel: /manifest/, href: /\/manifest\.webmanifest/ },
    { rel: /icon/, href: /\/favicon\.ico/, sizes: /any/ },
    { rel: /apple-touch-icon/, href: ASSET('png') },
  ],
  meta: [
    { charset: /utf-8/ },
    { name: /viewport/, content: /width=device-width, initial-scale=1/ },
    { name: /description/, content: TEXT },
    { name: /color-scheme/, content: /light dark|light|dark/ },
    { name: /theme-color/, content: /#[0-9a-f]{6}/ },
  ],
};

const INPUT: Rule = {
  type: /search|hidden|date|text|password|checkbox|url/,
  id: /[\w-]+/,
  name: /[\w:.-]+/,
  value: TEXT,
  placeholder: TEXT,
  autocomplete: /off|username|current-password|new-password/,
  autocapitalize: /off/,
  spellcheck: /false/,
  maxlength: /\d+/,
  minlength: /\d+/,
  max: /\d{4}-\d{2}-\d{2}/,
  min: /\d{4}-\d{2}-\d{2}/,
  pattern: TEXT,
  enterkeyhint: /search/,
  required: true,
  readonly: true,
  checked: true,
  'data-search-box': true,
  'aria-describedby': /[\w-]+/,
  'aria-label': TEXT,
};

const FORM: Rule = {
  class: /[a-z -]+/,
  role: /search/,
  action: PATH,
  method: /get|post/,
};

/** The frame elements the web layout and its pages' forms draw; nothing else is admitted. */
function frameElement(name: string, text: string): boolean {
  const attributes = attributesOf(text);
  if (!attributes) return false;
  if (name === 'form') return within(attributes, FORM, ['action', 'method']);
  if (name === 'input')
    return (attributes.has('name') || attributes.has('type')) && within(attributes, INPUT, []);
  return (FRAME_RULES[name] ?? []).some((rule) => exactly(attributes, rule));
}

/** The page's one script: the hashed bundle, deferred, with no text. */
function frameScript(text: string, body: string): boolean {
  const attributes = attributesOf(text);
  return (
    body === '' &&
    attributes !== undefined &&
    exactly(attributes, { src: ASSET('js'), defer: true })
  );
}

const PAGE: HtmlSafetyOptions = { allowElement: frameElement, allowScript: frameScript };

/** What in a page could run, and links that leave for another origin by a path (`//host`). */
function findings(html: string): string[] {
  const found = unsafeMarkup(html, PAGE);
  for (const m of html.matchAll(/\s(?:href|src|action)="(\/[/\\][^"]*)"/g))
    found.push(`link to another origin: ${m[1]}`);
  const scripts = html.match(/<script\b/gi)?.length ?? 0;
  if (scripts > 1) found.push(`${scripts} scripts`);
  return found;
}

// ---- Requests and what every answer must be ------------------------------------------------

interface Ask {
  url: string;
  /** The query parameter (or path field) the vector went into: a 400 page must name it. */
  field?: string;
  headers?: Record<string, string>;
  method?: 'GET' | 'POST';
  payload?: string;
  /** The app to ask (default the main one). */
  on?: 'limited';
  /** The status the page must end at (after the redirects on this site). */
  expect?: number;
}

const STATUSES = new Set([200, 301, 302, 303, 304, 400, 401, 403, 404, 409, 429]);
/** Where a redirect may send a browser off the site: the OAuth client's callback. */
const OFF_SITE = new Set([new URL(CALLBACK).origin]);

/** Answers asked for, by status (reported: what the vectors met). */
const statuses = new Map<number, number>();

async function ask(request: Ask, problems: string[], hops = 0): Promise<Response> {
  const target = request.on === 'limited' ? limited : app;
  const res = await target.inject({
    method: request.method ?? 'GET',
    url: request.url,
    payload: request.payload,
    headers: { accept: 'text/html', ...request.headers },
  });
  statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
  const where = `${request.method ?? 'GET'} ${request.url}`;
  if (!STATUSES.has(res.statusCode)) problems.push(`${res.statusCode} for ${where}`);
  const type = String(res.headers['content-type'] ?? '');
  if (type.startsWith('text/html')) {
    for (const f of findings(res.body)) problems.push(`${where}: ${f}`);
    if (res.statusCode === 400 && request.field !== undefined && !request.on) {
      if (!res.body.includes(`role="alert">${request.field}`))
        problems.push(`${where}: 400 page does not name ${request.field}`);
    }
  }
  const location = res.headers.location;
  if (typeof location === 'string') {
    const url = new URL(location, 'http://localhost');
    if (url.origin !== 'http://localhost' && !OFF_SITE.has(url.origin))
      problems.push(`${where}: redirect to ${location}`);
    else if (url.origin === 'http://localhost' && hops < 3 && request.method !== 'POST')
      return ask(
        { ...request, url: url.pathname + url.search, field: undefined },
        problems,
        hops + 1,
      );
  }
  if (request.expect !== undefined && res.statusCode !== request.expect)
    problems.push(`${where}: ${res.statusCode}, expected ${request.expect}`);
  return res;
}

/** Asks in a few parallel lanes (the database's latency, not the cores, bounds them). */
async function askAll(requests: readonly Ask[]): Promise<string[]> {
  const problems: string[] = [];
  let next = 0;
  const lane = async () => {
    while (next < requests.length) await ask(requests[next++]!, problems);
  };
  await Promise.all(Array.from({ length: 6 }, lane));
  return problems;
}

const signedIn = (extra = '') => ({ cookie: `token=${session}${extra}` });

// ---- The data --------------------------------------------------------------------------------

beforeAll(async () => {
  const { db } = t.current;
  await loadHostileNetwork(db);
  const env = {
    ...GENEROUS_LIMITS,
    SEARCH_CHECK_EVERY_MS: '0',
    OAUTH_AUTHORIZE_RATE_PER_MINUTE: '100000',
  };
  app = await makeApp(db, { clock: shanghaiClock(DAY), env });
  limited = await makeApp(db, {
    clock: shanghaiClock(DAY),
    env: { ...env, WEB_PAGE_BURST: '1', WEB_PAGES_PER_MINUTE: '1' },
  });
  const signIn = async (user: User) =>
    (
      await issueCredential(db, {
        userId: user.userId,
        issuer: 'webapp',
        scopes: [...scopesOfRole('user')],
        dailyTokenLimit: 100_000,
        activeFrom: new Date(shanghaiClock(DAY)()),
        expiresAt: new Date(Math.max(Date.now(), shanghaiClock(DAY)()) + 86_400_000),
      })
    ).secret;
  let owner = await makeUser(db);
  let ownerSession = await signIn(owner);
  session = ownerSession;
  // A user has at most 25 clients: 20 each, and each owner asks for its own (a client's
  // scopes are pending, usable by its owner only, until reviewed).
  for (const [i, vector] of VECTORS.entries()) {
    if (i > 0 && i % 20 === 0) {
      owner = await makeUser(db);
      ownerSession = await signIn(owner);
    }
    const client = await makeClient(db, owner, {
      // A name may hold no control character (the one tab of the vectors: a space here).
      // eslint-disable-next-line no-control-regex -- those are what the name may not hold
      name: clip(vector.replace(/[\u0000-\u001f\u007f]/g, ' '), CLIENT_NAME_MAX_LENGTH),
      description: vector,
    });
    const query = new URLSearchParams({
      response_type: 'code',
      client_id: client.clientId,
      redirect_uri: CALLBACK,
      scope: 'api.auth.me.read',
      state: 'st',
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSDtw-cM',
      code_challenge_method: 'S256',
    });
    consents.push({
      url: `/oauth/authorize?${query}`,
      headers: { cookie: `token=${ownerSession}` },
    });
  }
}, 120_000);
afterAll(async () => {
  await app?.close();
  await limited?.close();
  console.info(`hostile-input answers by status: ${JSON.stringify(Object.fromEntries(statuses))}`);
});

// ---- The tests -------------------------------------------------------------------------------

describe('the frame allowance', () => {
  it('admits the frame as drawn and refuses it with one attribute more or changed', () => {
    const css = ' rel="stylesheet" href="/assets/web/web.0123abcd.css"';
    expect(frameElement('link', css)).toBe(true);
    expect(frameElement('link', `${css} media="print"`)).toBe(false);
    expect(frameElement('link', ' rel="stylesheet" href="javascript:alert(1)"')).toBe(false);
    expect(frameElement('link', ' REL="stylesheet" HREF="/assets/web/web.0123abcd.css"')).toBe(
      false,
    );
    expect(frameElement('meta', ' http-equiv="refresh" content="0;url=/x"')).toBe(false);
    expect(frameElement('form', ' action="/search" method="get"')).toBe(true);
    expect(frameElement('form', '')).toBe(false);
    expect(frameElement('form', ' action="//evil.example/" method="get"')).toBe(false);
    expect(frameElement('input', ' type="hidden" name="_csrf" value="a-b-c"')).toBe(true);
    expect(frameElement('input', ' TYPE="IMAGE" SRC="javascript:alert(1)"')).toBe(false);
    expect(frameElement('input', ' type="image" src="x"')).toBe(false);
    expect(frameScript(' src="/assets/web/main.0123abcd.js" defer', '')).toBe(true);
    expect(frameScript(' src="https://xss.rocks/xss.js"', '')).toBe(false);
    expect(frameScript(' src="/assets/web/main.0123abcd.js" defer', 'alert(1)')).toBe(false);
  });

  it('flags the vectors that write frame elements (input, link, meta, form, script src) into the frame', async () => {
    const page = (await app.inject({ url: '/', headers: { accept: 'text/html' } })).body;
    expect(findings(page)).toEqual([]);
    const head = page.slice(0, page.indexOf('</head>'));
    const framing = VECTORS.filter((v) => /^<(input|link|meta|form|script src)/i.test(v));
    expect(framing.length).toBeGreaterThanOrEqual(6);
    for (const v of framing) expect(findings(`${head}${v}`), v).not.toEqual([]);
  });
});

describe('stored vectors print as text', () => {
  it('on the home page, the day page (and each filter value) and the days list', async () => {
    const asks: Ask[] = [
      { url: '/', expect: 200 },
      { url: '/exports/daily', expect: 200 },
      { url: `/day/${DAY}`, expect: 200 },
    ];
    for (let i = 0; i < N; i++) {
      for (const field of ['model', 'bureau', 'depot'])
        asks.push({
          url: `/day/${DAY}?${field}=${e(fleetValue(i))}`,
          field,
          // A filter text is at most 64 characters (page-params.ts); a longer one is refused.
          expect: fleetValue(i).length <= 64 ? 200 : 400,
        });
    }
    expect(await askAll(asks)).toEqual([]);
    const day = await app.inject({ url: `/day/${DAY}`, headers: { accept: 'text/html' } });
    expect(day.statusCode).toBe(200);
    // Escaped, not dropped: the stations and the units' models are there as text.
    expect(day.body).toContain('&lt;script&gt;alert(document.domain)&lt;/script&gt;');
    const filtered = await app.inject(`/day/${DAY}?model=${e(fleetValue(1))}`);
    expect(filtered.statusCode).toBe(200);
    expect(filtered.body).toContain(trainCode(1));
    expect(filtered.body).not.toContain(trainCode(2));
  });

  it('on every train page, its stations, and the search results that list them', async () => {
    const asks: Ask[] = [
      { url: `/train/${LONG_TRAIN}`, expect: 200 },
      { url: '/search?q=G91', expect: 200 },
    ];
    for (let i = 0; i < N; i++) {
      asks.push({ url: `/train/${trainCode(i)}`, expect: 200 });
      asks.push({ url: `/station/${e(station(i))}?date=${DAY}`, expect: 200 });
      asks.push({ url: `/search?q=${e(clip(station(i), 64))}`, expect: 200 });
    }
    expect(await askAll(asks)).toEqual([]);
    const train = await app.inject(`/train/${trainCode(1)}`);
    expect(train.statusCode).toBe(200);
    expect(train.body).toContain('&lt;svg onload=alert(2)&gt;');
  });

  it('on every unit page (by code and by alias), the fleet and every depot page', async () => {
    const asks: Ask[] = [
      { url: '/fleet', expect: 200 },
      { url: `/emu/${unitCode(N)}`, expect: 200 },
    ];
    for (let i = 0; i < N; i++) {
      asks.push({ url: `/emu/${unitCode(i)}`, expect: 200 });
      asks.push({ url: `/emu/${e(fleetValue(i))}` });
      // A path parameter is at most 100 characters (Fastify's limit): a longer one is refused.
      asks.push({
        url: `/fleet/depot/${e(fleetValue(i))}`,
        expect: fleetValue(i).length <= 100 ? 200 : 400,
      });
      for (const field of ['model', 'bureau', 'depot'])
        asks.push({
          url: `/fleet?${field}=${e(fleetValue(i))}`,
          field,
          expect: fleetValue(i).length <= 100 ? 200 : 400,
        });
    }
    expect(await askAll(asks)).toEqual([]);
    const unit = await app.inject(`/emu/${unitCode(2)}`);
    expect(unit.statusCode).toBe(200);
    expect(unit.body).toContain('&lt;svg onload=alert(2)&gt;');
  });

  it('on the consent page (client name and description) and the account page listing the clients', async () => {
    const asks: Ask[] = [
      { url: '/account', headers: signedIn(), expect: 200 },
      { url: '/account?tab=development', headers: signedIn(), expect: 200 },
      ...consents.map((consent) => ({ ...consent, expect: 200 })),
    ];
    expect(await askAll(asks)).toEqual([]);
    const consent = await app.inject(consents[2]!);
    expect(consent.statusCode).toBe(200);
    expect(consent.body).toContain('&lt;svg onload=alert(2)&gt;');
  });

  it('/suggest answers JSON with the vectors as data', async () => {
    const res = await app.inject('/suggest?q=G91');
    expect(res.statusCode).toBe(200);
    const body = JSON.parse(res.body) as { items: { code: string; subtitle: string }[] };
    const routes = new Map(body.items.map((item) => [item.code, item.subtitle]));
    expect(routes.size).toBeGreaterThan(0);
    for (const [code, subtitle] of routes) {
      const i = Number(code.slice(1)) - 9100;
      expect(subtitle).toBe(`${station(i)} → ${station(i + 1)}`);
    }
    for (let i = 0; i < N; i++) {
      const hit = await app.inject(`/suggest?q=${e(clip(station(i), 64))}`);
      expect(hit.statusCode, station(i)).toBe(200);
      expect(hit.headers['content-type']).toMatch(/^application\/json/);
      expect(() => JSON.parse(hit.body) as unknown, station(i)).not.toThrow();
    }
  });

  it('the CSVs (daily export, train and unit histories) carry the vectors as CSV text', async () => {
    const csv = async (url: string) => {
      const res = await app.inject(url);
      expect(res.statusCode, url).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/csv/);
      return parseCsv(res.body, { bom: true, relax_column_count: false }) as string[][];
    };
    const daily = await csv(`/exports/daily/${DAY}.csv`);
    for (let i = 0; i < N; i++) {
      expect(daily, trainCode(i)).toContainEqual([
        trainCode(i),
        unitCode(i),
        station(i),
        station(i + 1),
        '08:00',
        '09:00',
      ]);
    }
    for (const i of [0, 4, 21, N - 1]) {
      const train = await csv(`/train/${trainCode(i)}/history.csv?from=${ISO_DAY}&to=${ISO_DAY}`);
      expect(train[1]).toEqual([
        ISO_DAY,
        trainCode(i),
        unitCode(i),
        station(i),
        station(i + 1),
        '08:00',
        '09:00',
      ]);
      const unit = await csv(`/emu/${unitCode(i)}/history.csv?from=${ISO_DAY}&to=${ISO_DAY}`);
      expect(unit[1]!.slice(0, 5)).toEqual([
        ISO_DAY,
        trainCode(i),
        unitCode(i),
        station(i),
        station(i + 1),
      ]);
    }
  });
});

describe('vectors in the address print as text', () => {
  it('as a path segment of every page with one', async () => {
    const asks: Ask[] = [];
    // A segment over Fastify's 100 characters is refused before any route: the 400 page then
    // names the path, not the route's field.
    const dateField = (segment: string) =>
      decodeURIComponent(segment).length > 100 ? 'path' : 'date';
    for (const v of VECTORS) {
      const p = e(v);
      const range = `from=${ISO_DAY}&to=${ISO_DAY}`;
      asks.push(
        { url: `/train/${p}` },
        { url: `/train/${p}/history.csv?${range}` },
        { url: `/emu/${p}` },
        { url: `/emu/${p}/history.csv?${range}` },
        { url: `/station/${p}` },
        { url: `/day/${p}`, field: dateField(p) },
        { url: `/fleet/depot/${p}` },
        { url: `/exports/daily/${p}` },
        { url: `/exports/daily/${p}.csv`, field: dateField(`${p}.csv`) },
        { url: `/${p}` },
        // A path that a link would read as another origin's (`//host/...`).
        { url: `//xss.example/${p}` },
        { url: `/\\xss.example/${p}` },
      );
    }
    expect(await askAll(asks)).toEqual([]);
  });

  it('as the value of every query parameter the pages read', async () => {
    const pages: [string, string[]][] = [
      ['/search', ['q']],
      [`/train/${trainCode(0)}`, ['cursor', 'month']],
      [`/train/${trainCode(0)}/history.csv?to=${ISO_DAY}`, ['from']],
      [`/train/${trainCode(0)}/history.csv?from=${ISO_DAY}`, ['to']],
      [`/emu/${unitCode(0)}`, ['cursor', 'month']],
      [`/emu/${unitCode(0)}/history.csv?to=${ISO_DAY}`, ['from']],
      [`/emu/${unitCode(0)}/history.csv?from=${ISO_DAY}`, ['to']],
      [`/station/${e(station(0))}`, ['date', 'page']],
      ['/exports/daily', ['year', 'month']],
      [`/day/${DAY}`, ['train', 'model', 'bureau', 'depot', 'page']],
      ['/fleet', ['model', 'bureau', 'depot']],
      ['/login', ['next']],
      ['/register', ['next']],
    ];
    const asks: Ask[] = [];
    for (const v of VECTORS) {
      for (const [url, fields] of pages)
        for (const field of fields) asks.push({ url: withQuery(url, `${field}=${e(v)}`), field });
      asks.push({ url: `/account?tab=${e(v)}`, headers: signedIn() });
      for (const field of ['state', 'scope', 'redirect_uri', 'client_id']) {
        const url = new URL(consents[0]!.url, 'http://localhost');
        url.searchParams.set(field, v);
        asks.push({ url: url.pathname + url.search, headers: signedIn() });
      }
    }
    expect(await askAll(asks)).toEqual([]);
  });

  it('in the switches, an unknown parameter, Accept-Language and the cookies, on every kind of page', async () => {
    const kinds: Ask[] = [
      { url: '/' },
      { url: '/search?q=G91' },
      { url: `/train/${trainCode(0)}` },
      { url: `/emu/${unitCode(0)}` },
      { url: `/station/${e(station(0))}` },
      { url: '/exports/daily' },
      { url: `/day/${DAY}` },
      { url: '/fleet' },
      { url: `/fleet/depot/${e(fleetValue(0))}` },
      { url: '/no-such-page' },
      { url: '/day/2026-13-99' },
      { url: '/login' },
      { url: '/register' },
      { url: '/account', headers: signedIn() },
      { url: consents[0]!.url, headers: signedIn() },
      { url: `/station/${e(station(0))}`, on: 'limited' },
    ];
    const asks: Ask[] = [];
    for (const v of VECTORS) {
      const p = e(v);
      for (const kind of kinds) {
        const cookie = `lang=${p}; theme=${p}${kind.headers ? `; token=${session}` : ''}`;
        const headers = { 'accept-language': v, cookie };
        asks.push({ ...kind, url: withQuery(kind.url, `lang=${p}&theme=${p}&zz=${p}`), headers });
        // A switch that is taken: the redirect keeps the unknown parameter, on this site.
        asks.push({ ...kind, url: withQuery(kind.url, `lang=en&zz=${p}`), headers });
      }
    }
    expect(await askAll(asks)).toEqual([]);
  });

  it('as the username of a sign-in and a registration (the form comes back with it)', async () => {
    const form = await app.inject('/login');
    const token = /name="_csrf" value="([^"]+)"/.exec(form.body)?.[1];
    const cookie = form.cookies.map((c) => `${c.name}=${c.value}`).join('; ');
    expect(token).toBeDefined();
    const asks: Ask[] = [];
    for (const v of VECTORS) {
      const payload = new URLSearchParams({
        _csrf: token!,
        username: v,
        password: 'not the password',
        next: v,
      }).toString();
      for (const url of ['/login', '/register']) {
        asks.push({
          url,
          method: 'POST',
          payload,
          headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
        });
      }
    }
    expect(await askAll(asks)).toEqual([]);
  });
});
