import type { Readable } from 'node:stream';

/** What is known of a stored file without reading it. */
export interface StoredFileInfo {
  size: number;
  modifiedAt: Date;
}

/**
 * Where uploaded files and their sizes live, by key ("2026/11/photo.jpg": always forward
 * slashes, no "..", no leading slash). Files are written once and never overwritten: a key is
 * created exclusively, which is what makes concurrent uploads of one name get distinct files.
 * New bytes first land in a local scratch file (`scratchPath`) so that they can be hashed,
 * sniffed and decoded before they get a key.
 */
export interface MediaStorage {
  /** A new, unused local path for a scratch file (streamed upload, resized image, edit step). */
  scratchPath(extension?: string): Promise<string>;
  /**
   * Stores the local scratch file under `key` if no file has that key yet (true), else leaves
   * both as they are (false). On true the scratch file is consumed.
   */
  putExclusive(key: string, scratchFile: string): Promise<boolean>;
  /** Streams a stored file, or a byte range of it (end inclusive, as HTTP ranges). */
  read(key: string, range?: { start: number; end: number }): Readable;
  stat(key: string): Promise<StoredFileInfo | undefined>;
  /**
   * A local path sharp can read the file from, valid until `release` is called (the directory
   * storage gives the file itself; a remote one would download it to a scratch file).
   */
  localCopy(key: string): Promise<{ path: string; release(): Promise<void> }>;
  /** Removes a file; a missing one is no error. */
  delete(key: string): Promise<void>;
}

const KEY_SEGMENT = /^(?!\.{1,2}$)[^/\\\0]+$/u;

/** True for a key storage accepts: relative, forward slashes, no empty, "." or ".." parts. */
export function isValidStorageKey(key: string): boolean {
  const parts = key.split('/');
  return parts.length > 0 && parts.every((p) => KEY_SEGMENT.test(p));
}
