import { rm } from 'node:fs/promises';
import type { MediaStorage } from './media-storage.js';
import { candidateName } from './safe-file-name.js';

const MAX_ATTEMPTS = 10_000;

/**
 * Stores a scratch file as `dir/stem.ext`, or `dir/stem-1.ext`, `stem-2`, ... when the name is
 * taken. Each try is an exclusive create, so concurrent uploads of one name get distinct files.
 * Returns the key; the scratch file is consumed (or removed if no name could be had).
 */
export async function storeUnique(
  storage: MediaStorage,
  dir: string,
  stem: string,
  ext: string,
  scratchFile: string,
): Promise<string> {
  try {
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const key = `${dir}/${candidateName(stem, ext, attempt)}`;
      if (await storage.putExclusive(key, scratchFile)) return key;
    }
  } catch (err) {
    await rm(scratchFile, { force: true });
    throw err;
  }
  await rm(scratchFile, { force: true });
  throw new Error(`no free file name for ${dir}/${stem}.${ext}`);
}

/** The directory part of a key ("2026/11" of "2026/11/a.jpg"). */
export function keyDir(key: string): string {
  const slash = key.lastIndexOf('/');
  return slash < 0 ? '' : key.slice(0, slash);
}

/** The file name of a key ("a.jpg" of "2026/11/a.jpg"). */
export function keyBase(key: string): string {
  return key.slice(key.lastIndexOf('/') + 1);
}
