import { hiddenCsrf, html, Html } from '../html/html.js';
import { MANIFEST_URL, THEME_COLOR } from './app-manifest.js';
import type { WebAssets } from './assets/web-assets.js';
import { LANGUAGES, type Language } from './i18n/language.js';
import type { Theme, WebView } from './web-request.js';

/** Which part of the navigation a page belongs to (shown as the current one). */
export type Section = 'search' | 'fleet' | 'days' | 'account' | 'none';

export interface WebPageOptions {
  /** The page's title (the tab's; " · emutrack" is added) and, unless `heading` says, its h1. */
  title: string;
  /** The body's content, under the page's one h1. */
  body: Html;
  /** The h1's content when it differs from the title (a code with its chips, say). */
  heading?: Html;
  section?: Section;
  /** The meta description (search engines, link previews); default the app's own line. */
  description?: string;
  /** The search box in the header; the home page has its own, larger one. Default true. */
  headerSearch?: boolean;
  /** The text already in the header's search box (the results page). */
  query?: string;
  /**
   * A page for one reader (account, consent, operators'): never kept for reading offline (so no
   * offline notice) and no search box.
   */
  personal?: boolean;
  /** The signed-in reader: their name and a sign-out form (with this browser's CSRF token). */
  signedIn?: { username: string; csrfToken: string };
  /** The documentation site's address: the footer links its manual, guides and reference. */
  docsSite?: string;
  /** Page scripts (assets' names) loaded after main.js, as deferred as it. */
  scripts?: readonly string[];
}

const LANGUAGE_NAMES: Record<Language, string> = { 'zh-CN': '中文', en: 'English' };
const THEMES: readonly Theme[] = ['auto', 'light', 'dark'];

/** A link that keeps `here` and adds one switch parameter. */
function switchHref(here: string, name: 'lang' | 'theme', value: string): string {
  return `${here}${here.includes('?') ? '&' : '?'}${name}=${encodeURIComponent(value)}`;
}

/** The search form: a plain GET to /search, complete without script (suggestions add to it). */
export function searchForm(view: WebView, options: { query?: string; large?: boolean } = {}) {
  const { t } = view;
  const id = options.large ? 'q' : 'header-q';
  return html`<form class="search" role="search" action="/search" method="get">
    <label for="${id}">${t.searchLabel}</label>
    <input
      type="search"
      id="${id}"
      name="q"
      value="${options.query ?? ''}"
      placeholder="${t.searchPlaceholder}"
      autocomplete="off"
      autocapitalize="off"
      spellcheck="false"
      maxlength="64"
      enterkeyhint="search"
      data-search-box
    />
    <button type="submit">${t.searchButton}</button>
    ${options.large ? html`<p class="hint">${t.searchHint}</p>` : ''}
  </form>`;
}

function navigation(view: WebView, section: Section): Html {
  const { t } = view;
  const item = (href: string, label: string, mine: boolean) =>
    html`<li><a href="${href}" ${mine ? new Html('aria-current="page"') : ''}>${label}</a></li>`;
  return html`<nav class="site-nav" aria-label="${t.mainNavigation}">
    <ul>
      ${item('/', t.navHome, section === 'search')}
      ${item('/fleet', t.navFleet, section === 'fleet')}
      ${item('/exports/daily', t.navDays, section === 'days')}
      ${item('/account', t.navAccount, section === 'account')}
    </ul>
  </nav>`;
}

function signedInBox(view: WebView, user: { username: string; csrfToken: string }): Html {
  return html`<div class="who">
    <span>${user.username}</span>
    <form method="post" action="/logout">
      ${hiddenCsrf(user.csrfToken)}<button type="submit" class="secondary">
        ${view.t.signOut}
      </button>
    </form>
  </div>`;
}

function docsLinks(view: WebView, site: string): Html {
  const { t } = view;
  return html`<p>
    ${t.footerDocs}: <a href="${site}/manual/">${t.docsManual}</a> ·
    <a href="${site}/manual/oauth/">${t.docsOAuth}</a> ·
    <a href="${site}/manual/accounts/">${t.docsAccounts}</a> ·
    <a href="${site}/api-reference/">${t.docsApiReference}</a>
  </p>`;
}

function footer(view: WebView, docsSite: string | undefined): Html {
  const { t, here, language, theme } = view;
  const themeLabel: Record<Theme, string> = {
    auto: t.themeAuto,
    light: t.themeLight,
    dark: t.themeDark,
  };
  const languages = LANGUAGES.map((l) =>
    l === language
      ? html`<span aria-current="true" lang="${l}">${LANGUAGE_NAMES[l]}</span>`
      : html`<a href="${switchHref(here, 'lang', l)}" lang="${l}" hreflang="${l}"
          >${LANGUAGE_NAMES[l]}</a
        >`,
  );
  const themes = THEMES.map((s) =>
    s === theme
      ? html`<span aria-current="true">${themeLabel[s]}</span>`
      : html`<a href="${switchHref(here, 'theme', s)}" rel="nofollow">${themeLabel[s]}</a>`,
  );
  return html`<footer class="site-footer">
    <p class="switch">${t.footerLanguage}: ${languages}</p>
    <p class="switch">${t.footerTheme}: ${themes}</p>
    <p>${t.footerData}</p>
    <p><a href="/docs">${t.navApi}</a></p>
    ${docsSite === undefined ? '' : docsLinks(view, docsSite)}
  </footer>`;
}

/**
 * A whole page of the web app: the document, the shared header (brand, navigation, search), the
 * page's one h1 and body in `main`, the footer with the language and colour switches. Every
 * value is printed through the `html` tag, which escapes it for its place; the page loads only
 * this origin's hashed stylesheet and script (deferred: the page is complete before it runs).
 */
export function webPage(view: WebView, assets: WebAssets, options: WebPageOptions): string {
  const { t } = view;
  const section = options.section ?? 'none';
  return html`<!doctype html>
    <html lang="${view.language}" data-theme="${view.theme}" data-layout="web">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${options.title} · ${t.siteName}</title>
        <meta name="description" content="${options.description ?? t.pageDescription}" />
        <meta name="color-scheme" content="${view.theme === 'auto' ? 'light dark' : view.theme}" />
        <link rel="stylesheet" href="${assets.url('web.css')}" />
        <link rel="manifest" href="${MANIFEST_URL}" />
        <meta name="theme-color" content="${THEME_COLOR}" />
        <link rel="icon" href="/favicon.ico" sizes="any" />
        <link rel="apple-touch-icon" href="${assets.url('icon-192.png')}" />
        <script src="${assets.url('main.js')}" defer></script>
        ${(options.scripts ?? []).map((name) => html`<script src="${assets.url(name)}" defer></script>`)}
      </head>
      <body>
        <a class="skip-link" href="#main">${t.skipToContent}</a>
        <header class="site-header">
          <div class="bar">
            <a class="brand" href="/">${t.siteName}</a>
            ${navigation(view, section)}
            ${options.signedIn ? signedInBox(view, options.signedIn) : ''}
          </div>
        </header>
        <main id="main">
          ${options.personal ? '' : html`<p class="notice" data-offline-notice hidden>${t.possiblyStale}</p>`}
          ${options.headerSearch === false || options.personal ? '' : searchForm(view, { query: options.query })}
          <h1>${options.heading ?? options.title}</h1>
          ${options.body}
        </main>
        ${footer(view, options.docsSite)}
      </body>
    </html>`.text;
}
