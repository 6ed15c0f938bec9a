import { readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * XSS payloads of OWASP's XSS Filter Evasion Cheat Sheet (fixtures/xss/owasp-filter-evasion.txt,
 * source named in the file).
 */
export function owaspXssVectors(): string[] {
  const file = path.resolve(import.meta.dirname, '../../fixtures/xss/owasp-filter-evasion.txt');
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '' && !line.startsWith('#'));
}

/** Schemes a printed URL may carry (WordPress's allowed protocols); none = relative. */
const SAFE_SCHEMES = new Set([
  'http',
  'https',
  'ftp',
  'ftps',
  'mailto',
  'news',
  'irc',
  'irc6',
  'ircs',
  'gopher',
  'nntp',
  'feed',
  'telnet',
  'mms',
  'rtsp',
  'sms',
  'svn',
  'tel',
  'fax',
  'xmpp',
  'webcal',
  'urn',
]);

const URL_ATTRIBUTES = new Set([
  'href',
  'src',
  'action',
  'formaction',
  'background',
  'poster',
  'data',
  'cite',
  'longdesc',
  'dynsrc',
  'lowsrc',
  'xlink:href',
  'usemap',
  'codebase',
]);

/** Elements that run or load active content, or rebase or refresh the page. */
const ACTIVE_ELEMENTS = new Set([
  'iframe',
  'frame',
  'frameset',
  'object',
  'embed',
  'applet',
  'base',
  'bgsound',
  'svg',
  'math',
  'form',
  'input',
  'xss',
]);

function decodeEntities(value: string): string {
  return value
    .replace(/&#x([0-9a-f]+);?/gi, (_m, h: string) => String.fromCodePoint(parseInt(h, 16)))
    .replace(/&#(\d+);?/g, (_m, d: string) => String.fromCodePoint(Math.min(Number(d), 0x10ffff)))
    .replace(/&colon;/gi, ':')
    .replace(/&tab;/gi, '\t')
    .replace(/&newline;/gi, '\n')
    .replace(/&quot;/gi, '"')
    .replace(/&apos;/gi, "'")
    .replace(/&lt;/gi, '<')
    .replace(/&gt;/gi, '>')
    .replace(/&amp;/gi, '&');
}

function unsafeUrl(value: string): boolean {
  // Browsers drop control characters and whitespace inside a scheme (`jav\tascript:`).
  // eslint-disable-next-line no-control-regex -- those are what is removed
  const url = decodeEntities(value).replace(/[\u0000-\u0020\u007f]+/g, '');
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(url);
  return scheme !== null && !SAFE_SCHEMES.has(scheme[1]!.toLowerCase());
}

function unsafeCss(value: string): boolean {
  const css = decodeEntities(value)
    .replace(/\\([0-9a-f]{1,6})\s?/gi, (_m, h: string) => String.fromCodePoint(parseInt(h, 16)))
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .toLowerCase();
  if (/expression|javascript:|-moz-binding|behavior\s*:|@import/.test(css)) return true;
  for (const m of css.matchAll(/url\(\s*['"]?([^'")]*)/g))
    if (!/^(https?:\/\/|\/|data:font\/)/.test(m[1]!.trim())) return true;
  return false;
}

export interface HtmlSafetyOptions {
  /** An inline script the page may have (the page's own, e.g. wpApiSettings with its nonce). */
  allowScript?: (attributes: string, text: string) => boolean;
  /**
   * Elements of the page's own frame that are fine here (`link`, `meta`, `style`, and the
   * theme's own search form), recognised by their exact attributes.
   */
  allowElement?: (name: string, attributes: string) => boolean;
}

/**
 * What in a piece of HTML could run script, as a browser reads it: event-handler attributes,
 * script and other active elements, URLs of other schemes than WordPress's allowed protocols,
 * CSS that loads or evaluates, and markup in `<title>`. An independent reading of the output
 * (a tokenizer of its own, not the sanitizer's parser); markup it cannot read is reported too.
 * Returns the findings ([] when safe).
 */
export function unsafeMarkup(html: string, options: HtmlSafetyOptions = {}): string[] {
  const findings: string[] = [];
  const tag =
    /<(\/?)([a-zA-Z][^\s/>]*)((?:\s*[^\s=/>]+(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s>]+))?|\s*\/)*)\s*>/y;
  const attribute = /([^\s=/>]+)(?:\s*=\s*("[^"]*"|'[^']*'|[^\s>]+))?/g;
  let i = 0;
  while (i < html.length) {
    const lt = html.indexOf('<', i);
    if (lt === -1) break;
    if (html.startsWith('<!--', lt)) {
      const end = html.indexOf('-->', lt + 4);
      i = end === -1 ? html.length : end + 3;
      continue;
    }
    if (html.startsWith('<!', lt)) {
      const end = html.indexOf('>', lt);
      if (!/^<!doctype html>$/i.test(html.slice(lt, end + 1)))
        findings.push(`markup declaration: ${html.slice(lt, end + 1)}`);
      i = end === -1 ? html.length : end + 1;
      continue;
    }
    tag.lastIndex = lt;
    const m = tag.exec(html);
    if (!m) {
      // A `<` a browser would read as the start of a tag, left unparsed.
      if (/^<[a-zA-Z/?]/.test(html.slice(lt, lt + 2)))
        findings.push(`unreadable tag: ${html.slice(lt, lt + 60)}`);
      i = lt + 1;
      continue;
    }
    i = tag.lastIndex;
    const [, closing, rawName, attributes = ''] = m;
    if (closing) continue;
    const name = rawName!.toLowerCase();
    const allowed = options.allowElement?.(name, attributes) ?? false;
    if (ACTIVE_ELEMENTS.has(name) && !allowed) findings.push(`element <${name}>`);
    if (['link', 'meta', 'style'].includes(name) && !allowed) findings.push(`element <${name}>`);
    for (const a of attributes.matchAll(attribute)) {
      const attr = a[1]!.toLowerCase();
      const value = (a[2] ?? '').replace(/^["']|["']$/g, '');
      if (attr.startsWith('on')) findings.push(`event handler ${attr} on <${name}>`);
      if (URL_ATTRIBUTES.has(attr) && unsafeUrl(value))
        findings.push(`${attr}="${value}" on <${name}>`);
      if (attr === 'style' && unsafeCss(value)) findings.push(`style="${value}" on <${name}>`);
      if (attr === 'http-equiv') findings.push(`<${name} http-equiv>`);
    }
    // Raw text elements: their text is not markup; read to their end tag.
    if (['script', 'style', 'title', 'textarea', 'xmp', 'noscript', 'noembed'].includes(name)) {
      const end = html.toLowerCase().indexOf(`</${name}`, i);
      const text = html.slice(i, end === -1 ? html.length : end);
      if (name === 'script' && !(options.allowScript?.(attributes, text) ?? false))
        findings.push(`script: ${text.slice(0, 80)}`);
      if (name === 'style' && unsafeCss(text)) findings.push(`style element: ${text.slice(0, 80)}`);
      if (name === 'title' && /[<>]/.test(text)) findings.push(`markup in <title>: ${text}`);
      i = end === -1 ? html.length : end;
    }
  }
  return findings;
}
