import type { Config } from '../../shared/config/config.js';
import type { Db } from '../../shared/db/db.js';
import { resolveKeySecret, type KeySecret } from './key-secret.js';
import { SigningKeyStore } from './signing-keys.js';
import { ACCESS_TOKEN_LIFETIME_SECONDS } from './token-exchange.js';

export interface SigningKeysFromConfigOptions {
  /** Told when a secret had to be generated (no OAUTH_KEY_SECRET). */
  warn?: (message: string) => void;
  /** Milliseconds since the epoch. Default Date.now. */
  clock?: () => number;
}

/**
 * The signing-key store as every process builds it: the secret from OAUTH_KEY_SECRET (or the
 * generated file in DATA_DIR), resolved lazily on first use and then kept; retired keys stay
 * published for the id_token lifetime.
 */
export function signingKeysFromConfig(
  db: Db,
  config: Pick<Config, 'OAUTH_KEY_SECRET' | 'DATA_DIR'>,
  options: SigningKeysFromConfigOptions = {},
): SigningKeyStore {
  let secret: Promise<KeySecret> | undefined;
  return new SigningKeyStore(db, {
    secret: async () => {
      secret ??= resolveKeySecret({
        configured: config.OAUTH_KEY_SECRET,
        dataDir: config.DATA_DIR,
        warn: options.warn,
      });
      secret.catch(() => (secret = undefined));
      return (await secret).secret;
    },
    tokenLifetimeSeconds: ACCESS_TOKEN_LIFETIME_SECONDS,
    clock: options.clock,
  });
}
