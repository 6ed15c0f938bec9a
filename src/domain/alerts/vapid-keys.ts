import { compactDecrypt, CompactEncrypt } from 'jose';
import webPush from 'web-push';
import type { Queryable } from '../../shared/db/db.js';
import { EmutrackError } from '../../shared/errors/emutrack-error.js';

export interface VapidKeys {
  /** base64url of the uncompressed P-256 point: what PushManager.subscribe takes. */
  publicKey: string;
  /** base64url of the private scalar; kept encrypted at rest, never logged or shown. */
  privateKey: string;
}

const ENCRYPTION = { alg: 'PBES2-HS256+A128KW', enc: 'A256GCM' } as const;
const PBES2_COUNT = 10_000;

/**
 * The server's VAPID key pair: made once by the first process that asks (a race is decided by
 * the table's single row), the private key encrypted under OAUTH_KEY_SECRET as the OAuth signing
 * keys are. `secret` resolves that secret (signing-keys-config.ts's way).
 */
export async function loadVapidKeys(
  db: Queryable,
  secret: () => Promise<Uint8Array>,
): Promise<VapidKeys> {
  let row = await readRow(db);
  if (!row) {
    const made = webPush.generateVAPIDKeys();
    const jwe = await new CompactEncrypt(new TextEncoder().encode(made.privateKey))
      .setProtectedHeader(ENCRYPTION)
      .setKeyManagementParameters({ p2c: PBES2_COUNT })
      .encrypt(await secret());
    await db.query(
      `INSERT INTO alert_vapid_keys (public_key, private_jwe) VALUES ($1, $2)
       ON CONFLICT (only_row) DO NOTHING`,
      [made.publicKey, jwe],
    );
    row = (await readRow(db))!;
  }
  try {
    const { plaintext } = await compactDecrypt(row.private_jwe, await secret(), {
      keyManagementAlgorithms: [ENCRYPTION.alg],
      contentEncryptionAlgorithms: [ENCRYPTION.enc],
      maxPBES2Count: PBES2_COUNT,
    });
    return { publicKey: row.public_key, privateKey: new TextDecoder().decode(plaintext) };
  } catch (err) {
    throw new EmutrackError(
      'vapid_key_unreadable',
      'the VAPID private key cannot be decrypted: was it encrypted with another OAUTH_KEY_SECRET?',
      { cause: err },
    );
  }
}

/** The public key alone (what the page subscribes with); made on first need like the pair. */
export async function vapidPublicKey(
  db: Queryable,
  secret: () => Promise<Uint8Array>,
): Promise<string> {
  const row = await readRow(db);
  return row ? row.public_key : (await loadVapidKeys(db, secret)).publicKey;
}

async function readRow(db: Queryable) {
  const r = await db.query<{ public_key: string; private_jwe: string }>(
    'SELECT public_key, private_jwe FROM alert_vapid_keys',
  );
  return r.rows[0];
}
