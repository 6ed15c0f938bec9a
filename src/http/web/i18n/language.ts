import { en, type Messages } from './messages-en.js';
import { zh } from './messages-zh.js';

/** The languages of the web app: Chinese first (the default), English on request. */
export type Language = 'zh-CN' | 'en';

export const LANGUAGES: readonly Language[] = ['zh-CN', 'en'];

/** The cookie that keeps a reader's choice (the switch in every page's footer). */
export const LANGUAGE_COOKIE = 'lang';

const CATALOGUES: Record<Language, Messages> = { 'zh-CN': zh, en };

export function messagesOf(language: Language): Messages {
  return CATALOGUES[language];
}

/** A language named by the switch or the cookie (exact names only), else undefined. */
export function languageNamed(value: unknown): Language | undefined {
  return value === 'zh-CN' || value === 'en' ? value : undefined;
}

/** Longest Accept-Language header read (a browser sends well under 200 characters). */
const MAX_ACCEPT_LANGUAGE = 512;

/**
 * The language an Accept-Language header prefers among ours (RFC 9110 §12.5.4: the highest
 * q-value wins, ties in the order given), or undefined when it names neither. Any `zh` tag is
 * Chinese (the pages are written in simplified Chinese); any `en` tag is English.
 */
export function languageFromAcceptLanguage(header: string | undefined): Language | undefined {
  if (!header) return undefined;
  let best: { language: Language; q: number } | undefined;
  for (const part of header.slice(0, MAX_ACCEPT_LANGUAGE).split(',')) {
    const [tag = '', ...params] = part.trim().split(';');
    const primary = tag.trim().toLowerCase().split('-', 1)[0];
    const language: Language | undefined =
      primary === 'zh' ? 'zh-CN' : primary === 'en' ? 'en' : undefined;
    if (!language) continue;
    const qParam = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const q = qParam === undefined ? 1 : Number(qParam.slice(2));
    if (!Number.isFinite(q) || q <= 0) continue;
    if (!best || q > best.q) best = { language, q };
  }
  return best?.language;
}
