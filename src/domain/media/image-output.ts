import sharp, { type Sharp } from 'sharp';

export interface ImageOutputOptions {
  /** Quality of JPEG, WebP and AVIF output (1..100). */
  quality: number;
  /** Pixel limit of every decode (the same as the upload check). */
  maxPixels: number;
}

/**
 * A sharp pipeline reading `file` with the EXIF orientation applied, refusing truncated data
 * and images over the pixel limit. Every size and edit starts here.
 */
export function openOriented(file: string, options: Pick<ImageOutputOptions, 'maxPixels'>) {
  return sharp(file, { failOn: 'truncated', limitInputPixels: options.maxPixels }).autoOrient();
}

/** Encodes `pipeline` in the upload's own format (sizes and edits keep the original's type). */
export function encodeAs(
  pipeline: Sharp,
  mime: string,
  options: Pick<ImageOutputOptions, 'quality'>,
): Sharp {
  switch (mime) {
    case 'image/jpeg':
      return pipeline.jpeg({ quality: options.quality });
    case 'image/png':
      return pipeline.png();
    case 'image/webp':
      return pipeline.webp({ quality: options.quality });
    case 'image/gif':
      return pipeline.gif();
    case 'image/avif':
      return pipeline.avif({ quality: Math.round(options.quality * 0.75) });
    default:
      throw new Error(`no image encoder for ${mime}`);
  }
}
