import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  LANGUAGE_COOKIE,
  languageFromAcceptLanguage,
  languageNamed,
  messagesOf,
  type Language,
} from './i18n/language.js';
import type { Messages } from './i18n/messages-en.js';

/** The colour scheme a reader chose: the system's (the default), or one of its own. */
export type Theme = 'auto' | 'light' | 'dark';

export const THEME_COOKIE = 'theme';

function themeNamed(value: unknown): Theme | undefined {
  return value === 'auto' || value === 'light' || value === 'dark' ? value : undefined;
}

/** What a page is rendered for: the reader's language and scheme, and where it is. */
export interface WebView {
  language: Language;
  t: Messages;
  theme: Theme;
  /** The path and query of this page, without the switches' parameters (for their links). */
  here: string;
}

/**
 * The path and query of `url` less `lang` and `theme`, in their order. A path that starts with
 * more than one slash (or a backslash) starts with one here: links and redirects to it would
 * otherwise leave for the host it names (`//elsewhere.example/`).
 */
function withoutSwitches(written: string): string {
  const url = written.replace(/^[/\\]+/, '/');
  const at = url.indexOf('?');
  if (at === -1) return url;
  const query = new URLSearchParams(url.slice(at + 1));
  query.delete('lang');
  query.delete('theme');
  const rest = query.toString();
  return rest === '' ? url.slice(0, at) : `${url.slice(0, at)}?${rest}`;
}

const YEAR_SECONDS = 365 * 24 * 3600;

/**
 * The switches of the footer are links (`?lang=en`, `?theme=dark`): a reader's choice, kept in a
 * cookie, then the same page again at its own address. Returns true when it answered so.
 * They only choose how pages look, so a plain link (no form, no CSRF token) is enough: a page
 * that gets someone to follow one changes nothing but that.
 */
export function answerSwitch(request: FastifyRequest, reply: FastifyReply): boolean {
  const query = request.query as Record<string, unknown> | undefined;
  const language = languageNamed(query?.lang);
  const theme = themeNamed(query?.theme);
  if (!language && !theme) return false;
  const options = {
    path: '/',
    sameSite: 'lax' as const,
    maxAge: YEAR_SECONDS,
    secure: request.protocol === 'https',
  };
  if (language) reply.setCookie(LANGUAGE_COOKIE, language, options);
  if (theme) reply.setCookie(THEME_COOKIE, theme, options);
  void reply.header('cache-control', 'no-store').redirect(withoutSwitches(request.url), 303);
  return true;
}

/** The view of a request: the cookie's language, else Accept-Language's, else Chinese. */
export function webViewOf(request: FastifyRequest): WebView {
  const cookies = request.cookies ?? {};
  const language =
    languageNamed(cookies[LANGUAGE_COOKIE]) ??
    languageFromAcceptLanguage(request.headers['accept-language']) ??
    'zh-CN';
  return {
    language,
    t: messagesOf(language),
    theme: themeNamed(cookies[THEME_COOKIE]) ?? 'auto',
    here: withoutSwitches(request.url),
  };
}

/** What a page's cache key must hold besides its data: one rendering per language and scheme. */
export function viewKey(view: WebView): string {
  return `${view.language}:${view.theme}`;
}
