import { autop } from '../../../domain/content/autop.js';
import { gmtDate, localDate } from '../../../domain/content/site-dates.js';
import { sanitizeSlug } from '../../../domain/content/slugs.js';
import { texturize } from '../../../domain/content/texturize.js';
import { DEFAULT_IMAGE_SIZES, sizeDimensions } from '../../../domain/media/image-dimensions.js';
import { allFileKeys } from '../../../domain/media/image-subsizes.js';
import type { MediaItem } from '../../../domain/media/media-item.js';
import { keyDir } from '../../../domain/media/store-unique.js';
import { CURIES, filterByContext, type Context } from '../rest/rest-helpers.js';
import type { RestLink } from '../rest/rest-response.js';
import type { SiteUrls } from '../site-urls.js';
import { escapeHtml } from '../../html/escape.js';
import { MEDIA_SCHEMA } from './media-schema.js';

/** The public URL of a stored file: /wp-content/uploads/<key>, each part percent-encoded. */
export function uploadUrl(urls: SiteUrls, key: string): string {
  return urls.page(`/wp-content/uploads/${key.split('/').map(encodeURIComponent).join('/')}`);
}

/** prepare_item_for_response for media items. */
export class MediaPresenter {
  constructor(private readonly urls: SiteUrls) {}

  sourceUrl(item: MediaItem): string {
    return uploadUrl(this.urls, item.details.file);
  }

  /** Every URL the item's files are served at (what `src` of an edit may name). */
  fileUrls(item: MediaItem): string[] {
    return allFileKeys(item.originalKey, item.details).map((k) => uploadUrl(this.urls, k));
  }

  mediaDetails(item: MediaItem): Record<string, unknown> {
    const d = item.details;
    const dir = keyDir(d.file);
    const fileUrl = (file: string) => uploadUrl(this.urls, dir === '' ? file : `${dir}/${file}`);
    if (d.width === undefined) return { filesize: d.filesize, sizes: {} };
    const sizes: Record<string, unknown> = {};
    for (const [name, s] of Object.entries(d.sizes)) {
      sizes[name] = { ...s, source_url: fileUrl(s.file) };
    }
    sizes.full = {
      file: d.file.slice(d.file.lastIndexOf('/') + 1),
      width: d.width,
      height: d.height,
      mime_type: item.mimeType,
      source_url: this.sourceUrl(item),
    };
    const out: Record<string, unknown> = {
      width: d.width,
      height: d.height,
      file: d.file,
      filesize: d.filesize,
      sizes,
      image_meta: {},
    };
    if (d.original_image) out.original_image = d.original_image;
    if (d.parent_image) out.parent_image = d.parent_image;
    return out;
  }

  /** Sizes the image should have and does not yet (wp_get_missing_image_subsizes). */
  missingSizes(item: MediaItem): string[] {
    const { width, height } = item.details;
    if (width === undefined || height === undefined) return [];
    return DEFAULT_IMAGE_SIZES.filter(
      (s) => !item.details.sizes[s.name] && sizeDimensions(width, height, s) !== undefined,
    ).map((s) => s.name);
  }

  /** The description as shown: for images, the medium size linked to the file first (as WordPress does). */
  renderedDescription(item: MediaItem): string {
    let html = '';
    if (item.details.width !== undefined) {
      const shown = item.details.sizes.medium ?? undefined;
      const dir = keyDir(item.details.file);
      const src = shown
        ? uploadUrl(this.urls, dir === '' ? shown.file : `${dir}/${shown.file}`)
        : this.sourceUrl(item);
      const w = shown?.width ?? item.details.width;
      const h = shown?.height ?? item.details.height;
      html += `<p class="attachment"><a href="${escapeHtml(this.sourceUrl(item))}"><img width="${w}" height="${h}" src="${escapeHtml(src)}" class="attachment-medium size-medium" alt="${escapeHtml(item.altText)}" decoding="async" loading="lazy" /></a></p>\n`;
    }
    // autop of '' is '' (so is texturize): no case for an empty description or caption.
    return html + texturize(autop(item.post.content));
  }

  prepare(item: MediaItem, context: Context): Record<string, unknown> {
    const post = item.post;
    const date = post.dateGmt ?? post.modifiedGmt;
    const guid = this.sourceUrl(item);
    const data: Record<string, unknown> = {
      id: post.id,
      date: localDate(date),
      date_gmt: gmtDate(date),
      guid: { rendered: guid, raw: guid },
      modified: localDate(post.modifiedGmt),
      modified_gmt: gmtDate(post.modifiedGmt),
      slug: post.slug,
      status: post.status,
      type: 'attachment',
      link: this.urls.page(`/?attachment_id=${post.id}`),
      title: { raw: post.title, rendered: texturize(post.title) },
      author: post.author,
      comment_status: post.commentStatus,
      ping_status: post.pingStatus,
      template: post.template,
      meta: {},
      permalink_template: this.urls.page('/?attachment_id=%postname%'),
      generated_slug: post.slug || sanitizeSlug(post.title) || String(post.id),
      description: { raw: post.content, rendered: this.renderedDescription(item) },
      caption: { raw: post.excerpt, rendered: texturize(autop(post.excerpt)) },
      alt_text: item.altText,
      media_type: item.details.width !== undefined ? 'image' : 'file',
      mime_type: item.mimeType,
      media_details: this.mediaDetails(item),
      post: post.parent > 0 ? post.parent : null,
      source_url: this.sourceUrl(item),
      missing_image_sizes: this.missingSizes(item),
    };
    const filtered = filterByContext(data, MEDIA_SCHEMA, context);
    filtered._links = this.linksOf(item);
    return filtered;
  }

  linksOf(item: MediaItem): Record<string, RestLink[]> {
    const { urls } = this;
    const links: Record<string, RestLink[]> = {
      self: [{ href: urls.rest(`/wp/v2/media/${item.post.id}`) }],
      collection: [{ href: urls.rest('/wp/v2/media') }],
      about: [{ href: urls.rest('/wp/v2/types/attachment') }],
    };
    if (item.post.author > 0) {
      links.author = [{ embeddable: true, href: urls.rest(`/wp/v2/users/${item.post.author}`) }];
    }
    links.replies = [
      { embeddable: true, href: urls.rest('/wp/v2/comments', { post: item.post.id }) },
    ];
    links.curies = CURIES;
    return links;
  }
}
