import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { EmutrackError } from '../../shared/errors/emutrack-error.js';

/** Name of the generated secret's file under DATA_DIR (used only when OAUTH_KEY_SECRET is unset). */
export const KEY_SECRET_FILE = 'oauth-key-secret';

export interface KeySecretOptions {
  /** OAUTH_KEY_SECRET: at least 32 characters. Unset = a generated one in `dataDir`. */
  configured?: string;
  /** DATA_DIR: where the generated secret is kept when none is configured. */
  dataDir: string;
  /** Told once when a secret is generated (so an operator learns to configure one). */
  warn?: (message: string) => void;
}

export interface KeySecret {
  /** The bytes the signing keys are encrypted with. */
  secret: Uint8Array;
  source: 'configured' | 'generated';
}

/**
 * The secret the signing keys are encrypted with at rest. Configured (OAUTH_KEY_SECRET) is the
 * production way: the database then holds nothing that signs tokens without it. Without one,
 * a random secret is generated once into DATA_DIR/oauth-key-secret (mode 0600), so that a
 * development start works out of the box; every process that shares the database must then
 * share that file too.
 */
export async function resolveKeySecret(options: KeySecretOptions): Promise<KeySecret> {
  if (options.configured !== undefined && options.configured !== '') {
    return { secret: new TextEncoder().encode(options.configured), source: 'configured' };
  }
  const file = path.join(options.dataDir, KEY_SECRET_FILE);
  await mkdir(options.dataDir, { recursive: true });
  try {
    // "wx": of two processes starting at once, one writes and the other reads what it wrote.
    await writeFile(file, `${randomBytes(32).toString('base64url')}\n`, {
      flag: 'wx',
      mode: 0o600,
    });
    options.warn?.(
      `OAUTH_KEY_SECRET is not set: generated one in ${file}; set OAUTH_KEY_SECRET in production`,
    );
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') {
      throw new EmutrackError('oauth_key_secret_unavailable', `cannot create ${file}`, {
        cause: err,
      });
    }
  }
  const text = (await readFile(file, 'utf8')).trim();
  if (text.length < 32) {
    throw new EmutrackError(
      'oauth_key_secret_unavailable',
      `${file} is shorter than 32 characters`,
    );
  }
  return { secret: new TextEncoder().encode(text), source: 'generated' };
}
