import { createHash } from 'node:crypto';
import type { TrainCirculation } from '../circulation/train-circulation.js';
import type { Queryable } from '../../shared/db/db.js';
import { layoutCirculation, type PictureLayout } from './picture-layout.js';
import {
  defaultPictureRenderer,
  PICTURE_CONTENT_TYPES,
  type PictureFormat,
  type PictureRenderer,
} from './render-picture.js';
import { EmutrackError } from '../../shared/errors/emutrack-error.js';

/**
 * Circulation pictures, cached by what they show: a request lays the picture out (cheap), finds
 * the document drawn from the same layout before, and only draws (and stores) one when there is
 * none. Documents live in circulation_images (migration 005), so every API process shares them
 * and they outlive restarts.
 */

/** Part of every source hash: bump it when the drawing changes, so old documents are not reused. */
export const PICTURE_RENDERER_VERSION = 1;

export interface CirculationDocument {
  /** SHA-256 (hex) of the bytes. */
  documentId: string;
  format: PictureFormat;
  contentType: string;
  content: Buffer;
}

/** A picture laid out and looked up: `cached` is set when it was drawn before. */
export interface PreparedPicture {
  layout: PictureLayout;
  format: PictureFormat;
  sourceHash: string;
  cached?: CirculationDocument;
}

/** Drawing failed (the renderer threw); the cause is kept for the log. */
export class PictureRenderError extends EmutrackError {
  constructor(cause: unknown) {
    super(
      'picture_render_failed',
      `the circulation picture could not be rendered: ${(cause as Error)?.message ?? cause}`,
      {
        cause,
      },
    );
  }
}

interface DocumentRow {
  document_id: string;
  format: PictureFormat;
  content_type: string;
  content: Uint8Array;
}

function toDocument(row: DocumentRow): CirculationDocument {
  return {
    documentId: row.document_id,
    format: row.format,
    contentType: row.content_type,
    content: Buffer.from(row.content.buffer, row.content.byteOffset, row.content.byteLength),
  };
}

export function pictureSourceHash(layout: PictureLayout, format: PictureFormat): string {
  return createHash('sha256')
    .update(`circulation-picture v${PICTURE_RENDERER_VERSION}\n${format}\n`)
    .update(JSON.stringify(layout))
    .digest('hex');
}

export class CirculationPictures {
  constructor(
    private readonly db: Queryable,
    private readonly renderer: PictureRenderer = defaultPictureRenderer,
  ) {}

  /** Lays the circulation out for the train `askedCodes` names and looks for its document. */
  async prepare(
    circulation: TrainCirculation,
    askedCodes: readonly string[],
    format: PictureFormat,
  ): Promise<PreparedPicture> {
    const layout = layoutCirculation(circulation, askedCodes);
    const sourceHash = pictureSourceHash(layout, format);
    const r = await this.db.query<DocumentRow>(
      `SELECT document_id, format, content_type, content FROM circulation_images
        WHERE source_hash = $1`,
      [sourceHash],
    );
    const row = r.rows[0];
    return { layout, format, sourceHash, ...(row ? { cached: toDocument(row) } : {}) };
  }

  /** Draws a prepared picture and stores it; throws PictureRenderError when drawing fails. */
  async render(picture: PreparedPicture): Promise<CirculationDocument> {
    let content: Buffer;
    try {
      content = await this.renderer(picture.layout, picture.format);
    } catch (err) {
      throw new PictureRenderError(err);
    }
    const document: CirculationDocument = {
      documentId: createHash('sha256').update(content).digest('hex'),
      format: picture.format,
      contentType: PICTURE_CONTENT_TYPES[picture.format],
      content,
    };
    // Two requests drawing the same picture at once store it once; both answer with their bytes.
    await this.db.query(
      `INSERT INTO circulation_images (source_hash, document_id, format, content_type, content)
       VALUES ($1, $2, $3, $4, $5) ON CONFLICT (source_hash) DO NOTHING`,
      [picture.sourceHash, document.documentId, document.format, document.contentType, content],
    );
    return document;
  }

  /** A stored document by its id and format (what imageUrl names). */
  async read(documentId: string, format: PictureFormat): Promise<CirculationDocument | undefined> {
    const r = await this.db.query<DocumentRow>(
      `SELECT document_id, format, content_type, content FROM circulation_images
        WHERE document_id = $1 AND format = $2
        LIMIT 1`,
      [documentId, format],
    );
    return r.rows[0] ? toDocument(r.rows[0]) : undefined;
  }
}
