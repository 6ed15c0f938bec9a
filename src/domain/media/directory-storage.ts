import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { link, mkdir, rm, stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { MediaError } from './media-error.js';
import { isValidStorageKey, type MediaStorage, type StoredFileInfo } from './media-storage.js';

/** Scratch files live beside the uploads (same filesystem, so storing one is a link, not a copy). */
const SCRATCH_DIR = '.scratch';

/**
 * Files in a directory (DATA_DIR/uploads by default), keys as relative paths. A key is created
 * with link(2), which fails when the name exists: atomic, so two writers never get one name.
 */
export class DirectoryStorage implements MediaStorage {
  readonly root: string;

  constructor(root: string) {
    this.root = path.resolve(root);
  }

  private pathOf(key: string): string {
    if (!isValidStorageKey(key) || key.startsWith(`${SCRATCH_DIR}/`)) {
      throw new MediaError(
        'rest_upload_invalid_key',
        400,
        `not a storage key: ${JSON.stringify(key)}`,
      );
    }
    return path.join(this.root, ...key.split('/'));
  }

  async scratchPath(extension = ''): Promise<string> {
    const dir = path.join(this.root, SCRATCH_DIR);
    await mkdir(dir, { recursive: true });
    const suffix = extension === '' ? '' : `.${extension}`;
    return path.join(dir, `${Date.now()}-${randomBytes(8).toString('hex')}${suffix}`);
  }

  async putExclusive(key: string, scratchFile: string): Promise<boolean> {
    const target = this.pathOf(key);
    await mkdir(path.dirname(target), { recursive: true });
    try {
      await link(scratchFile, target);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw err;
    }
    await unlink(scratchFile).catch(() => {});
    return true;
  }

  read(key: string, range?: { start: number; end: number }): Readable {
    return createReadStream(this.pathOf(key), range);
  }

  async stat(key: string): Promise<StoredFileInfo | undefined> {
    // Not a storage key, or no file: undefined alike.
    try {
      const s = await stat(this.pathOf(key));
      return s.isFile() ? { size: s.size, modifiedAt: s.mtime } : undefined;
    } catch {
      return undefined;
    }
  }

  async localCopy(key: string): Promise<{ path: string; release(): Promise<void> }> {
    return { path: this.pathOf(key), release: async () => {} };
  }

  async delete(key: string): Promise<void> {
    await rm(this.pathOf(key), { force: true });
  }
}
