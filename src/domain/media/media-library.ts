import { rm } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { deletePost, getPost, insertPost, updatePost } from '../content/posts-store.js';
import { localDate } from '../content/site-dates.js';
import type { SitePostFields } from '../content/site-post.js';
import { sanitizeSlug } from '../content/slugs.js';
import type { Db } from '../../shared/db/db.js';
import { editImage, type ImageModifier } from './image-edit.js';
import { probeImage } from './image-probe.js';
import { allFileKeys, createImageSubsizes, type SubsizeOptions } from './image-subsizes.js';
import type { StoredMediaDetails } from './media-details.js';
import { MediaError } from './media-error.js';
import { ATTACHMENT_TYPE, attachmentExtra, mediaItemOf, type MediaItem } from './media-item.js';
import type { MediaStorage } from './media-storage.js';
import { ALLOWED_MEDIA_KINDS, extensionOf, stripExtension } from './media-types.js';
import { receiveUpload, type ReceivedUpload } from './receive-upload.js';
import { safeFileName } from './safe-file-name.js';
import { sniffMediaKind } from './sniff-media-kind.js';
import { keyBase, keyDir, storeUnique } from './store-unique.js';

export interface MediaLibraryOptions extends SubsizeOptions {
  /** Largest upload in bytes. */
  maxUploadBytes: number;
}

/** The writable fields of a media item (REST names in parentheses). */
export interface MediaFields {
  title?: string;
  /** (caption) */
  caption?: string;
  /** (description) */
  description?: string;
  /** (alt_text) */
  altText?: string;
  /** (post) The post the item belongs to; 0 = none. */
  post?: number;
  status?: string;
  slug?: string;
  author?: number;
  dateGmt?: Date;
  meta?: Record<string, unknown>;
}

export interface UploadInput {
  body: Readable;
  /** The client's file name (Content-Disposition or the multipart part). */
  fileName: string;
  /** Hex MD5 from Content-MD5, when sent. */
  md5?: string;
  author: number;
  fields?: MediaFields;
  now?: Date;
}

function postFields(fields: MediaFields): SitePostFields {
  return {
    title: fields.title,
    excerpt: fields.caption,
    content: fields.description,
    parent: fields.post,
    status: fields.status,
    slug: fields.slug === undefined ? undefined : sanitizeSlug(fields.slug),
    author: fields.author,
    dateGmt: fields.dateGmt,
    meta: fields.meta,
  };
}

/**
 * The site's media (src/domain/media): uploads streamed to storage and checked by their bytes, media
 * items as `attachment` rows of site_posts, image sizes made resumably, edits made into new
 * items. A refused or interrupted upload leaves neither a file nor a row.
 */
export class MediaLibrary {
  constructor(
    private readonly db: Db,
    readonly storage: MediaStorage,
    readonly options: MediaLibraryOptions,
  ) {}

  /**
   * Stores an upload and creates its item; sizes are not made yet (`makeSizes`), so that the
   * item exists and can be finished by a retry whatever happens to them.
   */
  async upload(input: UploadInput): Promise<MediaItem> {
    const received = await this.receive(input.body, input.md5);
    return this.storeReceived(received, input);
  }

  /** Streams a body to a scratch file (size limit, MD5): the first half of `upload`. */
  receive(body: Readable, md5?: string): Promise<ReceivedUpload> {
    return receiveUpload(this.storage, body, {
      maxBytes: this.options.maxUploadBytes,
      expectedMd5: md5,
    });
  }

  /**
   * The second half of `upload`: checks the received bytes, stores them under a unique name and
   * creates the item; the scratch file is consumed or removed whatever happens.
   */
  async storeReceived(
    received: ReceivedUpload,
    input: Omit<UploadInput, 'body' | 'md5'>,
  ): Promise<MediaItem> {
    const now = input.now ?? new Date();
    let scratch: string | undefined = received.scratchFile;
    let key: string | undefined;
    try {
      const name = safeFileName(input.fileName);
      const { kind, extension } = await sniffMediaKind(scratch, name.ext);
      let dims: { width: number; height: number } | undefined;
      if (kind.resizable) dims = await probeImage(scratch, this.options.maxPixels);
      key = await storeUnique(this.storage, uploadDir(now), name.stem, extension, scratch);
      scratch = undefined;
      const details: StoredMediaDetails = {
        file: key,
        filesize: received.size,
        ...(dims ? { width: dims.width, height: dims.height } : {}),
        sizes: {},
      };
      const fields = input.fields ?? {};
      const title =
        fields.title ?? stripExtension(input.fileName.split(/[\\/]/).pop() ?? name.stem);
      const post = await insertAttachment(this.db, {
        ...postFields(fields),
        type: ATTACHMENT_TYPE,
        status: fields.status ?? 'inherit',
        author: fields.author ?? input.author,
        title,
        slug: sanitizeSlug(fields.slug ?? title) || sanitizeSlug(name.stem) || 'file',
        dateGmt: fields.dateGmt ?? now,
        modifiedGmt: now,
        commentStatus: 'open',
        pingStatus: 'closed',
        extra: attachmentExtra({
          mimeType: kind.mime,
          originalKey: key,
          altText: fields.altText ?? '',
          details,
        }) as unknown as Record<string, unknown>,
      });
      return mediaItemOf(post);
    } catch (err) {
      if (scratch) await rm(scratch, { force: true });
      if (key) await this.storage.delete(key);
      throw err;
    }
  }

  async get(id: number): Promise<MediaItem | undefined> {
    const post = await getPost(this.db, id);
    return post && post.type === ATTACHMENT_TYPE ? mediaItemOf(post) : undefined;
  }

  /**
   * Makes whatever the item's files still lack ("create-image-subsizes"); non-images have none.
   * Saved after each file, so a failure part-way keeps what was made.
   */
  async makeSizes(item: MediaItem): Promise<MediaItem> {
    if (!isResizable(item.mimeType)) return item;
    let latest = item;
    await createImageSubsizes(
      this.storage,
      { originalKey: item.originalKey, mime: item.mimeType, details: item.details },
      this.options,
      async (details) => {
        latest = await this.saveDetails(latest, details);
      },
    );
    return latest;
  }

  private async saveDetails(item: MediaItem, details: StoredMediaDetails): Promise<MediaItem> {
    const r = await this.db.query<{ id: string }>(
      `UPDATE site_posts SET extra = jsonb_set(extra, '{media_details}', $2::jsonb) WHERE id = $1 RETURNING id`,
      [item.post.id, JSON.stringify(details)],
    );
    if (r.rowCount === 0) throw new MediaError('rest_post_invalid_id', 404, 'Invalid post ID.');
    return { ...item, details };
  }

  /** Updates the writable fields; alt text lives in extra. */
  async update(item: MediaItem, fields: MediaFields, now = new Date()): Promise<MediaItem> {
    const extra =
      fields.altText === undefined ? undefined : { ...item.post.extra, alt_text: fields.altText };
    const post = await updatePost(this.db, item.post.id, { ...postFields(fields), extra }, now);
    if (!post) throw new MediaError('rest_post_invalid_id', 404, 'Invalid post ID.');
    return mediaItemOf(post);
  }

  /** Deletes the item and every file it has (the upload, its scaled copy, its sizes). */
  async deleteForever(item: MediaItem): Promise<void> {
    await deletePost(this.db, item.post.id);
    for (const key of allFileKeys(item.originalKey, item.details)) await this.storage.delete(key);
  }

  /**
   * An edited copy of an image as a new item: modifiers applied in order to the original upload
   * (EXIF orientation applied), stored as "<name>-edited.<ext>", `parent_image` naming the
   * source. Sizes are left to `makeSizes`.
   */
  async editCopy(
    source: MediaItem,
    modifiers: readonly ImageModifier[],
    input: { author: number; fields?: MediaFields; now?: Date },
  ): Promise<MediaItem> {
    if (!isResizable(source.mimeType)) {
      throw new MediaError(
        'rest_unknown_image_file_type',
        400,
        'This type of file cannot be edited.',
      );
    }
    const now = input.now ?? new Date();
    const local = await this.storage.localCopy(source.originalKey);
    let key: string | undefined;
    try {
      const edited = await editImage(
        this.storage,
        local.path,
        source.mimeType,
        modifiers,
        this.options,
      );
      const base = keyBase(source.originalKey);
      const ext = extensionOf(base);
      const stem = stripExtension(base).replace(/-edited(-\d+)?$/, '');
      key = await storeUnique(
        this.storage,
        keyDir(source.originalKey),
        `${stem}-edited`,
        ext,
        edited.scratchFile,
      );
      const fields = input.fields ?? {};
      const title = fields.title ?? source.post.title;
      const post = await insertAttachment(this.db, {
        ...postFields(fields),
        type: ATTACHMENT_TYPE,
        status: 'inherit',
        author: input.author,
        title,
        slug: sanitizeSlug(fields.slug ?? title) || 'file',
        excerpt: fields.caption ?? source.post.excerpt,
        content: fields.description ?? source.post.content,
        parent: fields.post ?? source.post.parent,
        dateGmt: now,
        modifiedGmt: now,
        commentStatus: 'open',
        pingStatus: 'closed',
        extra: attachmentExtra({
          mimeType: source.mimeType,
          originalKey: key,
          altText: fields.altText ?? source.altText,
          details: {
            file: key,
            filesize: edited.size,
            width: edited.width,
            height: edited.height,
            sizes: {},
            parent_image: { attachment_id: source.post.id, file: source.originalKey },
          },
        }) as unknown as Record<string, unknown>,
      });
      return mediaItemOf(post);
    } catch (err) {
      if (key) await this.storage.delete(key);
      throw err;
    } finally {
      await local.release();
    }
  }
}

const UNIQUE_VIOLATION = '23505';

/**
 * insertPost, retried further on a slug taken meanwhile: many uploads of one name at once all
 * start from the same slug, and each round only one of them wins it.
 */
async function insertAttachment(db: Db, fields: Parameters<typeof insertPost>[1]) {
  for (let attempt = 0; ; attempt++) {
    try {
      return await insertPost(db, fields);
    } catch (err) {
      if (attempt >= 20 || (err as { code?: string }).code !== UNIQUE_VIOLATION) throw err;
    }
  }
}

export function isResizable(mime: string): boolean {
  return ALLOWED_MEDIA_KINDS.get(mime)?.resizable ?? false;
}

/** WordPress's year/month folders, in the site's time zone. */
export function uploadDir(now: Date): string {
  const local = localDate(now);
  return `${local.slice(0, 4)}/${local.slice(5, 7)}`;
}
