import sharp, { type Metadata } from 'sharp';
import { MediaError } from './media-error.js';

/** What an image's header says, with the EXIF orientation applied to width and height. */
export interface ImageProbe {
  /** Width and height as the image is seen (EXIF orientation applied). */
  width: number;
  height: number;
}

/**
 * Reads an image's header and refuses it before anything is decoded when it has more pixels
 * than `maxPixels` (a decompression bomb: a few KB declaring 100000 x 100000), then decodes it
 * once, small, to refuse truncated or corrupt data (libvips reads every scanline even when it
 * shrinks on load). Errors are 400s naming what is wrong.
 */
export async function probeImage(file: string, maxPixels: number): Promise<ImageProbe> {
  let meta: Metadata;
  try {
    meta = await sharp(file, { limitInputPixels: false }).metadata();
  } catch (err) {
    throw new MediaError(
      'rest_upload_invalid_image',
      400,
      `the image cannot be read: ${(err as Error).message.split('\n')[0]}`,
      { cause: err },
    );
  }
  const storedWidth = meta.width ?? 0;
  const storedHeight = meta.pageHeight ?? meta.height ?? 0;
  if (storedWidth <= 0 || storedHeight <= 0) {
    throw new MediaError('rest_upload_invalid_image', 400, 'the image has no width or height');
  }
  const pixels = storedWidth * (meta.height ?? storedHeight);
  if (pixels > maxPixels) {
    throw new MediaError(
      'rest_upload_image_too_large',
      400,
      `the image is ${storedWidth} x ${meta.height ?? storedHeight} pixels, more than the limit of ${maxPixels} pixels`,
    );
  }
  try {
    await sharp(file, { failOn: 'truncated', limitInputPixels: maxPixels })
      .resize(64, 64, { fit: 'inside' })
      .raw()
      .toBuffer();
  } catch (err) {
    throw new MediaError(
      'rest_upload_invalid_image',
      400,
      `the image is corrupt or truncated: ${(err as Error).message.split('\n')[0]}`,
      { cause: err },
    );
  }
  const orientation = meta.orientation ?? 1;
  const swapped = orientation >= 5 && orientation <= 8;
  return {
    width: swapped ? storedHeight : storedWidth,
    height: swapped ? storedWidth : storedHeight,
  };
}
