import { rm } from 'node:fs/promises';
import sharp, { type Sharp } from 'sharp';
import { encodeAs, openOriented, type ImageOutputOptions } from './image-output.js';
import { MediaError } from './media-error.js';
import type { MediaStorage } from './media-storage.js';
import { ALLOWED_MEDIA_KINDS } from './media-types.js';

/** One step of an image edit, as the REST route takes it (WordPress 5.5+). */
export type ImageModifier =
  | { type: 'flip'; args: { flip: { horizontal: boolean; vertical: boolean } } }
  | { type: 'rotate'; args: { angle: number } }
  | { type: 'crop'; args: { left: number; top: number; width: number; height: number } };

/** The deprecated form (before modifiers): a rotation, then a crop, in percent. */
export interface LegacyImageEdit {
  rotation?: number;
  x?: number;
  y?: number;
  width?: number;
  height?: number;
}

/** The deprecated fields as modifiers, in WordPress's order: rotate first, then crop. */
export function modifiersFromLegacy(edit: LegacyImageEdit): ImageModifier[] {
  const out: ImageModifier[] = [];
  if (edit.rotation !== undefined && edit.rotation !== 0) {
    out.push({ type: 'rotate', args: { angle: edit.rotation } });
  }
  const { x, y, width, height } = edit;
  if (x !== undefined && y !== undefined && width !== undefined && height !== undefined) {
    out.push({ type: 'crop', args: { left: x, top: y, width, height } });
  }
  return out;
}

/** The pixel region a crop in percent selects of a width x height image (WordPress's rounding). */
export function cropRegion(
  width: number,
  height: number,
  crop: { left: number; top: number; width: number; height: number },
): { left: number; top: number; width: number; height: number } {
  const left = Math.min(Math.max(0, Math.round((width * crop.left) / 100)), width - 1);
  const top = Math.min(Math.max(0, Math.round((height * crop.top) / 100)), height - 1);
  const w = Math.min(Math.max(1, Math.round((width * crop.width) / 100)), width - left);
  const h = Math.min(Math.max(1, Math.round((height * crop.height) / 100)), height - top);
  return { left, top, width: w, height: h };
}

export interface EditedImage {
  /** Scratch file with the encoded result (the caller stores or removes it). */
  scratchFile: string;
  width: number;
  height: number;
  size: number;
}

/**
 * Applies modifiers in order to an image (EXIF orientation applied first). Each step is its own
 * libvips pass through a scratch file in libvips' native format, because sharp's pipeline has a
 * fixed order of operations and the modifiers have none; nothing is held whole in memory. A
 * modifier that changes nothing (flip neither way, a rotation by a multiple of 360, a crop of
 * everything) is skipped; if none is left, 400 `rest_image_not_edited`.
 */
export async function editImage(
  storage: MediaStorage,
  sourceFile: string,
  mime: string,
  modifiers: readonly ImageModifier[],
  options: ImageOutputOptions,
): Promise<EditedImage> {
  const steps: string[] = [];
  let current = sourceFile;
  let first = true;
  const meta = await sharp(sourceFile, { limitInputPixels: false }).metadata();
  const swapped = (meta.orientation ?? 1) >= 5;
  let width = (swapped ? meta.height : meta.width) ?? 0;
  let height = (swapped ? meta.width : meta.height) ?? 0;
  const open = () =>
    first ? openOriented(current, options) : sharp(current, { limitInputPixels: false });
  try {
    for (const modifier of modifiers) {
      let pipeline: Sharp | undefined;
      if (modifier.type === 'flip') {
        const { horizontal, vertical } = modifier.args.flip;
        if (!horizontal && !vertical) continue;
        pipeline = open();
        if (vertical) pipeline = pipeline.flip();
        if (horizontal) pipeline = pipeline.flop();
      } else if (modifier.type === 'rotate') {
        const angle = ((modifier.args.angle % 360) + 360) % 360;
        if (angle === 0) continue;
        const opaque = mime === 'image/jpeg';
        pipeline = open().rotate(angle, {
          background: opaque
            ? { r: 255, g: 255, b: 255, alpha: 1 }
            : { r: 0, g: 0, b: 0, alpha: 0 },
        });
      } else {
        const region = cropRegion(width, height, modifier.args);
        if (region.width === width && region.height === height) continue;
        pipeline = open().extract(region);
      }
      const next = await storage.scratchPath('v');
      steps.push(next);
      const info = await pipeline.toFile(next);
      width = info.width;
      height = info.height;
      current = next;
      first = false;
    }
    if (first) {
      throw new MediaError(
        'rest_image_not_edited',
        400,
        'The image was not edited. Edit the image before applying the changes.',
      );
    }
    const out = await storage.scratchPath(ALLOWED_MEDIA_KINDS.get(mime)?.extensions[0] ?? 'img');
    try {
      const info = await encodeAs(open(), mime, options).toFile(out);
      return { scratchFile: out, width: info.width, height: info.height, size: info.size };
    } catch (err) {
      await rm(out, { force: true });
      throw err;
    }
  } finally {
    for (const step of steps) await rm(step, { force: true });
  }
}
