import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import type { Browser, BrowserContext, BrowserContextOptions, Page } from 'playwright-core';
import { afterAll, beforeAll, expect } from 'vitest';
import type { ApiApp } from '../../../src/http/api/app.js';
import type { Db } from '../../../src/shared/db/db.js';
import { useChromium } from '../../helpers/browser.js';
import { useTestDatabase, type TestDatabase } from '../../helpers/test-db.js';
import { makeApp } from '../../api/helpers/api-harness.js';
import { LAST_DAY, loadFixtureWeek, shanghaiClock } from '../../api/helpers/fixture-week.js';

export { LAST_DAY };

/** The fixture week's last day, 10:00 in Shanghai: "today" of every web test. */
export const WEB_TODAY = '20260816';

/** Limits a test's own browsing never meets (the page-limit test sets its own). */
export const GENEROUS_LIMITS = { WEB_PAGE_BURST: '100000', WEB_PAGES_PER_MINUTE: '100000' };

export interface WebServer {
  app: ApiApp;
  /** http://127.0.0.1:PORT */
  base: string;
  close(): Promise<void>;
}

/**
 * The API process's app on the fixture week, listening on a loopback port of its own (for the
 * browser), its clock on the fixture's last day.
 */
export async function startWebServer(
  db: Db,
  options: { env?: Record<string, string>; load?: boolean } = {},
): Promise<WebServer> {
  if (options.load !== false) await loadFixtureWeek(db);
  const app = await makeApp(db, {
    clock: shanghaiClock(WEB_TODAY),
    env: { ...GENEROUS_LIMITS, ...options.env },
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  if (!address || typeof address === 'string') throw new Error('no port');
  return {
    app,
    base: `http://127.0.0.1:${address.port}`,
    close: () => app.close(),
  };
}

/** What a page did that a test refuses: CSP violations, requests off this origin, errors. */
export interface PageWatch {
  cspViolations: string[];
  foreignRequests: string[];
  consoleErrors: string[];
}

/** The options of a phone's browser context (360 px wide, touch), JavaScript on unless said. */
function phoneLook(options: PhoneOptions): BrowserContextOptions {
  return {
    viewport: { width: 360, height: 740 },
    deviceScaleFactor: 2,
    hasTouch: true,
    isMobile: true,
    javaScriptEnabled: options.javaScript ?? true,
    colorScheme: options.colorScheme ?? 'light',
    locale: options.locale ?? 'zh-CN',
  };
}

/**
 * A browser context as a person's phone (360 px wide, touch), with JavaScript on or off, and a
 * watch on what its pages do. `colorScheme` and `locale` choose the scheme and Accept-Language.
 */
export async function phoneContext(
  browser: Browser,
  base: string,
  options: { javaScript?: boolean; colorScheme?: 'light' | 'dark'; locale?: string } = {},
): Promise<{ context: BrowserContext; watch: PageWatch; newPage(): Promise<Page> }> {
  const context = await browser.newContext(phoneLook(options));
  const watch: PageWatch = { cspViolations: [], foreignRequests: [], consoleErrors: [] };
  const origin = new URL(base).origin;
  context.on('request', (request) => {
    const url = request.url();
    if (!url.startsWith(origin) && !url.startsWith('data:') && !url.startsWith('blob:')) {
      watch.foreignRequests.push(url);
    }
  });
  return {
    context,
    watch,
    async newPage() {
      const page = await context.newPage();
      page.on('console', (message) => {
        if (message.type() !== 'error') return;
        const text = message.text();
        if (/Content.Security.Policy/i.test(text)) watch.cspViolations.push(text);
        else watch.consoleErrors.push(text);
      });
      return page;
    },
  };
}

/** Whether the page scrolls sideways (its content wider than the viewport). */
export async function scrollsSideways(page: Page): Promise<boolean> {
  return page.evaluate(
    () => document.documentElement.scrollWidth > document.documentElement.clientWidth + 1,
  );
}

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core'), 'utf8');

/** axe-core's WCAG 2.x A/AA violations on the page as it is (rule id and the nodes' targets). */
export async function axeViolations(page: Page): Promise<string[]> {
  // Injected as a script element's text through the DevTools protocol's main world: the page's
  // CSP (no inline scripts) does not apply to what the test itself evaluates.
  await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(o: unknown): Promise<unknown> } }).axe;
    const result = (await axe.run({
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'] },
    })) as { violations: { id: string; nodes: { target: string[] }[] }[] };
    return result.violations.map(
      (v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`,
    );
  });
  return violations;
}

/**
 * axe on a page shown with JavaScript off. axe is a script, and a context without JavaScript
 * never settles the promise it answers with: so the page's document as it stands (after any
 * typing) is opened again in a context of the same shape with JavaScript on, at the same
 * address, with the same cookies, where every script the page asks for is refused. What axe
 * reads there is what a reader without JavaScript has: the markup, its styles and images.
 */
export async function axeViolationsWithoutScripts(
  page: Page,
  options: { colorScheme?: 'light' | 'dark'; locale?: string } = {},
): Promise<string[]> {
  const source = page.context();
  const document = await page.content();
  const url = page.url();
  const context = await source.browser()!.newContext(phoneLook(options));
  try {
    await context.addCookies(await source.cookies());
    await context.route('**/*', (route) => {
      const request = route.request();
      if (request.resourceType() === 'script') return route.abort();
      if (request.isNavigationRequest() && request.url() === url)
        return route.fulfill({ contentType: 'text/html; charset=utf-8', body: document });
      return route.continue();
    });
    const copy = await context.newPage();
    await copy.goto(url);
    return await axeViolations(copy);
  } finally {
    await context.close();
  }
}

/** Expects the watch clean: no CSP violation, nothing from another origin, no script error. */
export function expectCleanWatch(watch: PageWatch): void {
  expect(watch.cspViolations).toEqual([]);
  expect(watch.foreignRequests).toEqual([]);
  expect(watch.consoleErrors).toEqual([]);
}

/**
 * A page test file's database and app (no port: tests call app.inject), the clock on the fixture
 * week's last day and limits and quotas a test never meets. `prepare` fills the database first.
 */
export function useWebApp(prepare: (db: Db) => Promise<unknown>): {
  readonly t: { readonly current: TestDatabase };
  readonly app: ApiApp;
} {
  const t = useTestDatabase();
  let app: ApiApp | undefined;
  beforeAll(async () => {
    await prepare(t.current.db);
    app = await makeApp(t.current.db, {
      clock: shanghaiClock(WEB_TODAY),
      env: { ...GENEROUS_LIMITS, QUOTA_ANONYMOUS_CAPACITY: '1000000' },
    });
  });
  afterAll(async () => app?.close());
  return {
    t,
    get app() {
      if (!app) throw new Error('the app is not made yet');
      return app;
    },
  };
}

/** A browser test file's database, Chromium and web server, made once for the file's tests. */
export interface WebBrowserTest {
  /** The file's database (valid inside tests and hooks). */
  readonly t: { readonly current: TestDatabase };
  /** The server, started before the file's tests. */
  readonly server: WebServer;
  browser(): Promise<Browser>;
  /** onPhone on this file's browser and server. */
  onPhone(
    options: PhoneOptions & { watch?: boolean },
    body: (page: Page, context: BrowserContext, watch: PageWatch) => Promise<void>,
  ): Promise<void>;
  /** checkPhonePage on this file's server. */
  checkPage(
    page: Page,
    path: string,
    locale: string,
    options?: { axe?: boolean },
  ): ReturnType<typeof checkPhonePage>;
}

/**
 * The preamble of every browser test file: its own database, Chromium, and the web server on it
 * (closed after the tests). `prepare` runs on the database before the server starts (a fixture
 * of the file's own, with `load: false` in place of the fixture week); `ready` after it; `env`
 * between them.
 */
export function useWebBrowserTest(
  options: {
    load?: boolean;
    prepare?: (db: Db) => Promise<unknown>;
    ready?: (db: Db, server: WebServer) => Promise<unknown>;
    /** More of the app's settings, read once `prepare` has run (a port it opened, say). */
    env?: () => Record<string, string>;
  } = {},
): WebBrowserTest {
  const t = useTestDatabase();
  const chromium = useChromium();
  let server: WebServer | undefined;
  beforeAll(async () => {
    await options.prepare?.(t.current.db);
    server = await startWebServer(t.current.db, {
      load: options.load ?? true,
      ...(options.env ? { env: options.env() } : {}),
    });
    await options.ready?.(t.current.db, server);
  });
  afterAll(async () => server?.close());
  return {
    t,
    get server() {
      if (!server) throw new Error('the web server is not started yet');
      return server;
    },
    browser: () => chromium.browser(),
    onPhone(options, body) {
      return onPhone(this, options, body);
    },
    checkPage(page, path, locale, checks) {
      return checkPhonePage(page, this.server.base, path, locale, checks);
    },
  };
}

/** The scheme and language pairs each page is checked in: both languages, both schemes. */
export const PHONE_LOOKS = [
  { colorScheme: 'light', locale: 'zh-CN' },
  { colorScheme: 'dark', locale: 'en-US' },
] as const;

export type PhoneOptions = {
  javaScript?: boolean;
  colorScheme?: 'light' | 'dark';
  locale?: string;
};

/**
 * Runs `body` on a page in a phone context (see phoneContext), then expects the watch clean
 * (unless `watch: false`) and closes the context whatever happened.
 */
export async function onPhone(
  web: WebBrowserTest,
  options: PhoneOptions & { watch?: boolean },
  body: (page: Page, context: BrowserContext, watch: PageWatch) => Promise<void>,
): Promise<void> {
  const { context, watch, newPage } = await phoneContext(
    await web.browser(),
    web.server.base,
    options,
  );
  try {
    await body(await newPage(), context, watch);
    if (options.watch !== false) expectCleanWatch(watch);
  } finally {
    await context.close();
  }
}

/**
 * Opens `path` on the page and expects it in the language `locale` asks for (zh-CN unless
 * en-US), no sideways scroll and no axe violation; returns the navigation's answer.
 */
export async function checkPhonePage(
  page: Page,
  base: string,
  path: string,
  locale: string,
  options: { axe?: boolean } = {},
): Promise<Awaited<ReturnType<Page['goto']>>> {
  const answer = await page.goto(`${base}${path}`);
  expect(await page.getAttribute('html', 'lang'), path).toBe(locale === 'en-US' ? 'en' : 'zh-CN');
  expect(await scrollsSideways(page), path).toBe(false);
  if (options.axe !== false) expect(await axeViolations(page), path).toEqual([]);
  return answer;
}
