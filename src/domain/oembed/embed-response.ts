import { escapeHtml } from '../../shared/text/escape-html.js';

/** What the oEmbed answer for one of the site's posts or pages is made from. */
export interface EmbeddableItem {
  title: string;
  /** The item's public address. */
  link: string;
  /** The embed view the iframe shows. */
  embedUrl: string;
  authorName: string;
  authorUrl: string;
}

export interface SiteFacts {
  name: string;
  url: string;
}

const DEFAULT_WIDTH = 600;
const MIN_HEIGHT = 200;

/**
 * get_oembed_response_data: version 1.0, type rich, the site as provider, the author, and an
 * iframe of the embed view. The width is at most `maxwidth` (default and cap 600, as WordPress);
 * the height is 16:9 of it, at least 200 (or the width, for narrower ones).
 */
export function oembedResponse(
  item: EmbeddableItem,
  site: SiteFacts,
  maxwidth = DEFAULT_WIDTH,
): Record<string, string | number> {
  const width = Math.max(1, Math.min(Math.floor(maxwidth), DEFAULT_WIDTH));
  const height = Math.max(Math.ceil((width / 16) * 9), Math.min(MIN_HEIGHT, width));
  const title = escapeHtml(item.title);
  const html =
    `<blockquote class="wp-embedded-content"><a href="${escapeHtml(item.link)}">${title}</a></blockquote>` +
    `<iframe sandbox="allow-scripts" security="restricted" src="${escapeHtml(item.embedUrl)}" width="${width}" height="${height}" title="${title}" frameborder="0" marginwidth="0" marginheight="0" scrolling="no" class="wp-embedded-content"></iframe>`;
  return {
    version: '1.0',
    provider_name: site.name,
    provider_url: site.url,
    author_name: item.authorName,
    author_url: item.authorUrl,
    title: item.title,
    type: 'rich',
    width,
    height,
    html,
  };
}

function escapeXml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** _oembed_create_xml: the same data as `<oembed>` with one element per field. */
export function oembedXml(data: Record<string, string | number>): string {
  const fields = Object.entries(data)
    .map(([k, v]) => `<${k}>${escapeXml(String(v))}</${k}>`)
    .join('');
  return `<?xml version="1.0"?>\n<oembed>${fields}</oembed>\n`;
}
