/**
 * The characters that can start markup, end an attribute's quoted value or start an entity,
 * with the entity each is written as. One table for every page of the project (the API's, the
 * site's, the oEmbed answers), so that one text is escaped alike wherever it is shown.
 */
const ENTITIES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** The entity of one of `& < > " '` (what escapeHtml writes for it). */
export function htmlEntityOf(c: string): string {
  return ENTITIES[c] ?? c;
}

/** Text as HTML text, or as an attribute's value (double- or single-quoted). */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, htmlEntityOf);
}
