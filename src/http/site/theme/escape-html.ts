import { htmlEntityOf } from '../../../shared/text/escape-html.js';

/*
 * The site's own escapers, for text that WordPress writes with entities in it already; any
 * other text and every URL is escaped by the API process's one kit (src/http/html/escape.ts).
 */

/**
 * esc_html: text whose entities are already HTML (texturized titles: `&#8220;`), escaped without
 * encoding those entities twice.
 */
export function escapeHtmlText(s: string): string {
  return s.replace(/&(?!(?:#\d{1,7}|#x[0-9a-f]{1,6}|[a-z][a-z0-9]{1,31});)|[<>"']/gi, htmlEntityOf);
}

/**
 * The text of a title for `<title>` (wp_get_document_title: the title's tags stripped, then
 * esc_html): `<title>` is raw text, so markup in a title would show as such, and a `</title>`
 * in it would end the element.
 */
export function documentTitle(titleHtml: string): string {
  return escapeHtmlText(titleHtml.replace(/<[^>]*>?/g, ''));
}
