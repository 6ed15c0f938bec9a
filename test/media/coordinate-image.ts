import sharp from 'sharp';

/**
 * A lossless test image whose every pixel says where it came from: R = x mod 256,
 * G = y mod 256, B = (x >> 8) * 4 + (y >> 8). Reading a pixel of an edited copy back gives the
 * source coordinate, so geometry is checked exactly, pixel by pixel.
 */
export async function coordinatePng(width: number, height: number): Promise<Buffer> {
  const raw = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 3;
      raw[i] = x & 255;
      raw[i + 1] = y & 255;
      raw[i + 2] = (x >> 8) * 4 + (y >> 8);
    }
  }
  return sharp(raw, { raw: { width, height, channels: 3 } })
    .png()
    .toBuffer();
}

export interface DecodedImage {
  width: number;
  height: number;
  /** The source coordinate a pixel carries. */
  sourceAt(x: number, y: number): [number, number];
}

export async function decodeCoordinates(file: string | Buffer): Promise<DecodedImage> {
  const { data, info } = await sharp(file)
    .removeAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  return {
    width: info.width,
    height: info.height,
    sourceAt(x, y) {
      const i = (y * info.width + x) * info.channels;
      const b = data[i + 2]!;
      return [data[i]! + 256 * (b >> 2), data[i + 1]! + 256 * (b & 3)];
    },
  };
}
