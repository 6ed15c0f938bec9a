import sanitizeHtml, { type IOptions } from 'sanitize-html';
import {
  ALLOWED_PROTOCOLS,
  GLOBAL_ATTRIBUTES,
  POST_TAGS,
  SAFE_CSS_PROPERTIES,
  TITLE_TAGS,
} from './kses-allowed-html.js';
import type { SitePostFields } from './site-post.js';

export { ALLOWED_PROTOCOLS };

/**
 * WordPress's kses for the site: what a user without `unfiltered_html` (authors, contributors)
 * may save as HTML. The allow-lists are WordPress's (wp-includes/kses.php: `$allowedposttags`
 * with the global attributes, `$allowedtags` for titles, `wp_allowed_protocols()`); the parser and
 * filter are sanitize-html (htmlparser2 underneath: a maintained, streaming parser, no DOM needed
 * on the server, and its allow-list options map one to one onto kses's tag => attributes table).
 *
 * Differences from kses, all stricter: `<object>` (kses allows PDFs from this site through a
 * callback) is not allowed; `style` keeps only WordPress's safe CSS properties
 * (safecss_filter_attr) with values that cannot load anything but an http(s) or same-site image.
 */

/** A CSS value that loads nothing and cannot escape its declaration. */
const SAFE_CSS_VALUE = /^(?!.*(?:url\s*\(|expression|image-set|@import|javascript:|\\))[^<>{};]*$/i;
/** background(-image): a plain value, or one http(s)/same-site image. */
const SAFE_CSS_IMAGE = /^url\(\s*(['"]?)(?:https?:\/\/|\/(?!\/))[^'"()\\\s<>]*\1\s*\)$/i;

const ALLOWED_STYLES: Record<string, RegExp[]> = Object.fromEntries(
  SAFE_CSS_PROPERTIES.map((p) => [
    p,
    p === 'background' || p === 'background-image'
      ? [SAFE_CSS_VALUE, SAFE_CSS_IMAGE]
      : [SAFE_CSS_VALUE],
  ]),
);

/** Comments travel through sanitize-html as this element and come back as comments. */
const COMMENT_TAG = 'wp-kses-comment';

/** sanitize-html 2.17's option that @types/sanitize-html does not declare yet. */
type KsesOptions = IOptions & { allowedEmptyAttributes: string[] };

function optionsOf(tags: Record<string, string[]>, global: string[]): KsesOptions {
  const allowedAttributes: Record<string, string[]> = {};
  for (const [tag, attributes] of Object.entries(tags))
    allowedAttributes[tag] = [...attributes, ...global];
  allowedAttributes[COMMENT_TAG] = ['data-i'];
  return {
    allowedTags: [...Object.keys(tags), COMMENT_TAG],
    allowedAttributes,
    allowedSchemes: [...ALLOWED_PROTOCOLS],
    allowedSchemesAppliedToAttributes: [
      'href',
      'src',
      'cite',
      'longdesc',
      'poster',
      'usemap',
      'action',
      'formaction',
      'background',
      'data',
      'xlink:href',
    ],
    allowProtocolRelative: true,
    allowedStyles: { '*': ALLOWED_STYLES },
    allowedEmptyAttributes: [
      'alt',
      'download',
      'open',
      'controls',
      'autoplay',
      'loop',
      'muted',
      'playsinline',
      'reversed',
      'disabled',
      'readonly',
      'hidden',
      'nohref',
      'noshade',
      'nowrap',
      'default',
    ],
    // Text of <script>, <style>, <textarea>-like tags that are not allowed is dropped with them.
    disallowedTagsMode: 'discard',
  };
}

const POST_OPTIONS = optionsOf(POST_TAGS, GLOBAL_ATTRIBUTES);
const TITLE_OPTIONS = optionsOf(TITLE_TAGS, []);

/** A block delimiter (`<!-- wp:ns/name {attrs} /-->`) as WordPress's block parser reads it. */
const BLOCK_DELIMITER =
  /^\s+(\/)?wp:((?:[a-z][a-z0-9_-]*\/)?[a-z][a-z0-9_-]*)\s+(\{[\s\S]*\}\s+)?(\/)?$/;

/** serialize_block_attributes: JSON that cannot end the comment or open a tag. */
function serializeBlockAttributes(attrs: unknown): string {
  return JSON.stringify(attrs)
    .replace(/--/g, '\\u002d\\u002d')
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\\"/g, '\\u0022');
}

/** filter_block_kses_value: every string of a block's attributes (keys too) through kses. */
function filterBlockValue(value: unknown, options: IOptions): unknown {
  if (typeof value === 'string') return /[<>]/.test(value) ? sanitizeHtml(value, options) : value;
  if (Array.isArray(value)) return value.map((v) => filterBlockValue(v, options));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      const key = filterBlockValue(k, options) as string;
      if (key === k) out[k] = filterBlockValue(v, options);
    }
    return out;
  }
  return value;
}

/**
 * A comment as kses keeps it: a block delimiter with its attributes filtered and re-serialized
 * (filter_block_content), any other comment with no markup in it and no `--` (wp_kses_split),
 * else nothing.
 */
function keptComment(text: string, options: IOptions): string {
  const block = BLOCK_DELIMITER.exec(text);
  if (block) {
    const [, closer, name, json, selfClosing] = block;
    let attrs = '';
    if (json && !closer) {
      try {
        const parsed: unknown = JSON.parse(json);
        if (parsed && typeof parsed === 'object' && !Array.isArray(parsed))
          attrs = `${serializeBlockAttributes(filterBlockValue(parsed, options))} `;
      } catch {
        // Attributes that do not parse are dropped, the block kept (the parser ignores them too).
      }
    }
    return `<!-- ${closer ?? ''}wp:${name} ${attrs}${selfClosing ?? ''}-->`;
  }
  if (/[<>]/.test(text)) return '';
  const cleaned = text.replace(/--+/g, '-').replace(/-$/, '');
  return cleaned.trim() === '' ? '' : `<!--${cleaned}-->`;
}

function filter(html: string, options: IOptions): string {
  if (html === '') return html;
  const comments: string[] = [];
  const marked = html.replace(/<!--([\s\S]*?)-->/g, (_m, text: string) => {
    comments.push(keptComment(text, options));
    return `<${COMMENT_TAG} data-i="${comments.length - 1}"></${COMMENT_TAG}>`;
  });
  const clean = sanitizeHtml(marked, options);
  if (!clean.includes(COMMENT_TAG)) return clean;
  return clean
    .replace(
      new RegExp(`<${COMMENT_TAG} data-i="(\\d+)"></${COMMENT_TAG}>`, 'g'),
      (_m, i: string) => comments[Number(i)] ?? '',
    )
    .replace(new RegExp(`</?${COMMENT_TAG}[^>]*>`, 'g'), '');
}

/** wp_kses_post: content, excerpts, descriptions (and the blocks' attributes in them). */
export function ksesPost(html: string): string {
  return filter(html, POST_OPTIONS);
}

/** wp_filter_kses on a title: `$allowedtags` only. */
export function ksesTitle(html: string): string {
  return filter(html, TITLE_OPTIONS);
}

/**
 * The fields of a post-like item as WordPress saves them for a user without `unfiltered_html`
 * (content_save_pre, excerpt_save_pre, title_save_pre). Changes `fields` in place.
 */
export function ksesPostFields(fields: SitePostFields): SitePostFields {
  if (fields.title !== undefined) fields.title = ksesTitle(fields.title);
  if (fields.content !== undefined) fields.content = ksesPost(fields.content);
  if (fields.excerpt !== undefined) fields.excerpt = ksesPost(fields.excerpt);
  return fields;
}

/**
 * esc_url for printing: the URL when its scheme is one of wp_allowed_protocols (or it has none:
 * relative), else ''. Control characters and spaces are removed first, as browsers ignore them
 * in a scheme (`java\tscript:`).
 */
export function safeUrl(url: string): string {
  // eslint-disable-next-line no-control-regex -- the control characters are what is removed
  const trimmed = url.replace(/[\u0000-\u0020\u007f]+/g, '');
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(trimmed);
  if (scheme && !(ALLOWED_PROTOCOLS as readonly string[]).includes(scheme[1]!.toLowerCase()))
    return '';
  return url.trim();
}

/** sanitize_html_class: the characters a class name may have. */
export function sanitizeHtmlClass(name: string): string {
  return name.replace(/%[a-fA-F0-9]{2}/g, '').replace(/[^A-Za-z0-9_-]/g, '');
}
