import type { SitePost } from '../content/site-post.js';
import type { StoredMediaDetails } from './media-details.js';

/** The site_posts type of media items (WordPress's attachment post type). */
export const ATTACHMENT_TYPE = 'attachment';

/** What an attachment keeps in site_posts.extra. */
export interface AttachmentExtra {
  mime_type: string;
  /** Storage key of the untouched upload. */
  original_file: string;
  alt_text: string;
  media_details: StoredMediaDetails;
}

/**
 * A media item: its site_posts row (title; `content` is the description, `excerpt` the caption,
 * `parent` the post it belongs to) and its file facts.
 */
export interface MediaItem {
  post: SitePost;
  mimeType: string;
  /** image, video, audio, text or application. */
  mediaType: string;
  originalKey: string;
  altText: string;
  details: StoredMediaDetails;
}

export function mediaItemOf(post: SitePost): MediaItem {
  const extra = post.extra as unknown as Partial<AttachmentExtra>;
  const mimeType = extra.mime_type ?? 'application/octet-stream';
  const details = extra.media_details ?? {
    file: extra.original_file ?? '',
    filesize: 0,
    sizes: {},
  };
  return {
    post,
    mimeType,
    mediaType: mimeType.split('/')[0] ?? 'application',
    originalKey: extra.original_file ?? details.file,
    altText: extra.alt_text ?? '',
    details: { ...details, sizes: details.sizes ?? {} },
  };
}

export function attachmentExtra(item: Omit<MediaItem, 'post' | 'mediaType'>): AttachmentExtra {
  return {
    mime_type: item.mimeType,
    original_file: item.originalKey,
    alt_text: item.altText,
    media_details: item.details,
  };
}
