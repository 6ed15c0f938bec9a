import { rm } from 'node:fs/promises';
import sharp, { type Sharp } from 'sharp';
import {
  DEFAULT_IMAGE_SIZES,
  scaledDimensions,
  sizeDimensions,
  type ImageSizeSpec,
} from './image-dimensions.js';
import { encodeAs, openOriented, type ImageOutputOptions } from './image-output.js';
import type { StoredMediaDetails } from './media-details.js';
import type { MediaStorage } from './media-storage.js';
import { extensionOf, stripExtension } from './media-types.js';
import { keyBase, keyDir, storeUnique } from './store-unique.js';

export interface SubsizeOptions extends ImageOutputOptions {
  /** Largest side of the shown copy (WordPress's big-image threshold); 0 = off. */
  bigImageThreshold: number;
  /** Default: WordPress's thumbnail, medium, medium_large, large. */
  sizes?: readonly ImageSizeSpec[];
  /**
   * Called before each file is made ("scaled", "rotated" or a size name); tests throw here to
   * stand for a request that dies half-way (the post-process retry path).
   */
  beforeEachFile?: (name: string) => void | Promise<void>;
}

export interface SubsizeSubject {
  /** Storage key of the untouched upload (sizes are made from it). */
  originalKey: string;
  mime: string;
  details: StoredMediaDetails;
}

/**
 * wp_create_image_subsizes, resumable: makes what is missing of the item's files (first the
 * "-scaled" copy of a big image, or a "-rotated" one when EXIF orientation must be applied, then
 * every size smaller than the image), calling `persist` after each so that a retry after a crash
 * goes on where it stopped. Run on a complete item it makes nothing: idempotent.
 */
export async function createImageSubsizes(
  storage: MediaStorage,
  subject: SubsizeSubject,
  options: SubsizeOptions,
  persist: (details: StoredMediaDetails) => Promise<void>,
): Promise<StoredMediaDetails> {
  const details: StoredMediaDetails = structuredClone(subject.details);
  const dir = keyDir(subject.originalKey);
  const base = keyBase(subject.originalKey);
  const ext = extensionOf(base);
  const stem = stripExtension(base);
  const local = await storage.localCopy(subject.originalKey);
  try {
    const makeFile = async (
      name: string,
      fileStem: string,
      shape: (p: Sharp) => Sharp,
    ): Promise<{ key: string; width: number; height: number; size: number }> => {
      await options.beforeEachFile?.(name);
      const scratch = await storage.scratchPath(ext);
      try {
        const info = await encodeAs(
          shape(openOriented(local.path, options)),
          subject.mime,
          options,
        ).toFile(scratch);
        const key = await storeUnique(storage, dir, fileStem, ext, scratch);
        return { key, width: info.width, height: info.height, size: info.size };
      } finally {
        await rm(scratch, { force: true });
      }
    };

    if (details.original_image === undefined) {
      const meta = await sharp(local.path).metadata();
      const orientation = meta.orientation ?? 1;
      const width = details.width ?? meta.width ?? 0;
      const height = details.height ?? meta.height ?? 0;
      const scaled = scaledDimensions(width, height, options.bigImageThreshold);
      if (scaled || orientation > 1) {
        const suffix = scaled ? 'scaled' : 'rotated';
        const made = await makeFile(suffix, `${stem}-${suffix}`, (p) =>
          scaled ? p.resize(scaled.width, scaled.height, { fit: 'fill' }) : p,
        );
        details.file = made.key;
        details.width = made.width;
        details.height = made.height;
        details.filesize = made.size;
        details.original_image = base;
        await persist(structuredClone(details));
      }
    }

    const width = details.width ?? 0;
    const height = details.height ?? 0;
    for (const spec of options.sizes ?? DEFAULT_IMAGE_SIZES) {
      if (details.sizes[spec.name]) continue;
      const target = sizeDimensions(width, height, spec);
      if (!target) continue;
      const same = Object.values(details.sizes).find(
        (s) => s.width === target.width && s.height === target.height,
      );
      if (same) {
        details.sizes[spec.name] = { ...same };
      } else {
        const made = await makeFile(spec.name, `${stem}-${target.width}x${target.height}`, (p) =>
          p.resize(target.width, target.height, {
            fit: spec.crop ? 'cover' : 'fill',
            position: 'centre',
          }),
        );
        details.sizes[spec.name] = {
          file: keyBase(made.key),
          width: made.width,
          height: made.height,
          mime_type: subject.mime,
          filesize: made.size,
        };
      }
      await persist(structuredClone(details));
    }
  } finally {
    await local.release();
  }
  return details;
}

/** Every storage key an item's files use (the upload, its copy, its sizes): what deleting removes. */
export function allFileKeys(originalKey: string, details: StoredMediaDetails): string[] {
  const dir = keyDir(originalKey);
  const keys = new Set([originalKey, details.file]);
  for (const s of Object.values(details.sizes)) keys.add(dir === '' ? s.file : `${dir}/${s.file}`);
  return [...keys];
}
