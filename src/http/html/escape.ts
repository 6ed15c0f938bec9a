import { safeUrl } from '../../domain/content/kses.js';
import { escapeHtml } from '../../shared/text/escape-html.js';

/*
 * One escaper per context a value is printed into, for every page of the API process and the
 * site: the text/attribute one lives in src/shared/ (the domain's oEmbed answers use it too).
 */

export { escapeHtml };

/**
 * A URL as an href or src attribute's value: a URL of an allowed protocol (else empty:
 * safeUrl, as kses filters a post's links), escaped as an attribute.
 */
export function escapeUrl(url: string): string {
  return escapeHtml(safeUrl(url));
}

/**
 * A value as JSON inside a `<script>` element: no `<` (so neither `</script>` nor `<!--` can
 * end or change the element) and no line or paragraph separator.
 */
export function scriptJson(value: unknown): string {
  return (JSON.stringify(value) ?? 'null')
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}
