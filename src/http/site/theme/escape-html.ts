import { safeUrl } from '../../../domain/content/kses.js';

/** Text as HTML text or attribute value. */
export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * esc_html: text whose entities are already HTML (texturized titles: `&#8220;`), escaped without
 * encoding those entities twice.
 */
export function escapeHtmlText(s: string): string {
  return s.replace(/&(?!(?:#\d{1,7}|#x[0-9a-f]{1,6}|[a-z][a-z0-9]{1,31});)|[<>"']/gi, (c) =>
    c === '&' ? '&amp;' : `&#${c.charCodeAt(0)};`,
  );
}

/**
 * The text of a title for `<title>` (wp_get_document_title: the title's tags stripped, then
 * esc_html): `<title>` is raw text, so markup in a title would show as such, and a `</title>`
 * in it would end the element.
 */
export function documentTitle(titleHtml: string): string {
  return escapeHtmlText(titleHtml.replace(/<[^>]*>?/g, ''));
}

/** esc_url for an attribute: a URL of an allowed protocol (else empty), escaped. */
export function escapeUrl(url: string): string {
  return escapeHtml(safeUrl(url));
}
