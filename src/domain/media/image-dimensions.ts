/** One of the sizes WordPress registers. */
export interface ImageSizeSpec {
  name: string;
  /** Largest width; 0 = not bounded. */
  width: number;
  /** Largest height; 0 = not bounded. */
  height: number;
  /** Crop to exactly width x height (centre) instead of fitting inside. */
  crop: boolean;
}

/** WordPress's default sizes (thumbnail, medium, medium_large, large). */
export const DEFAULT_IMAGE_SIZES: readonly ImageSizeSpec[] = [
  { name: 'thumbnail', width: 150, height: 150, crop: true },
  { name: 'medium', width: 300, height: 300, crop: false },
  { name: 'medium_large', width: 768, height: 0, crop: false },
  { name: 'large', width: 1024, height: 1024, crop: false },
];

export interface Dimensions {
  width: number;
  height: number;
}

/**
 * wp_constrain_dimensions: the largest size within maxWidth x maxHeight (0 = unbounded) keeping
 * the aspect ratio, never enlarging.
 */
export function constrainDimensions(
  width: number,
  height: number,
  maxWidth: number,
  maxHeight: number,
): Dimensions {
  const widthRatio = maxWidth > 0 && width > maxWidth ? maxWidth / width : 1;
  const heightRatio = maxHeight > 0 && height > maxHeight ? maxHeight / height : 1;
  const ratio = Math.min(widthRatio, heightRatio);
  let w = Math.max(1, Math.round(width * ratio));
  let h = Math.max(1, Math.round(height * ratio));
  // Rounding may push the other side one pixel past its bound (WordPress checks the same).
  if (maxWidth > 0 && w > maxWidth) w = maxWidth;
  if (maxHeight > 0 && h > maxHeight) h = maxHeight;
  return { width: w, height: h };
}

/**
 * image_resize_dimensions: the size `spec` gives an image of width x height, or undefined when
 * the image is not larger than it (WordPress makes no file then).
 */
export function sizeDimensions(
  width: number,
  height: number,
  spec: Pick<ImageSizeSpec, 'width' | 'height' | 'crop'>,
): Dimensions | undefined {
  let target: Dimensions;
  if (spec.crop) {
    target = {
      width: Math.min(spec.width > 0 ? spec.width : width, width),
      height: Math.min(spec.height > 0 ? spec.height : height, height),
    };
  } else {
    target = constrainDimensions(width, height, spec.width, spec.height);
  }
  if (target.width >= width && target.height >= height) return undefined;
  return target;
}

/** The big-image step: the size of the "-scaled" copy, or undefined when none is needed. */
export function scaledDimensions(
  width: number,
  height: number,
  threshold: number,
): Dimensions | undefined {
  if (threshold <= 0 || (width <= threshold && height <= threshold)) return undefined;
  return constrainDimensions(width, height, threshold, threshold);
}
