/** One made size of an image (WordPress's `sizes` entry, without its URL). */
export interface StoredImageSize {
  /** File name in the item's directory. */
  file: string;
  width: number;
  height: number;
  mime_type: string;
  filesize: number;
}

/**
 * An attachment's metadata as kept (WordPress's _wp_attachment_metadata). `file` is the storage
 * key of the file the item shows (the "-scaled" or "-rotated" copy once made, else the upload).
 */
export interface StoredMediaDetails {
  file: string;
  filesize: number;
  width?: number;
  height?: number;
  sizes: Record<string, StoredImageSize>;
  /** File name of the untouched upload, once a "-scaled"/"-rotated" copy is what the item shows. */
  original_image?: string;
  /** For an edited copy: the item it was made from. */
  parent_image?: { attachment_id: number; file: string };
}
