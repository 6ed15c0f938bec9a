import {
  CompactEncrypt,
  calculateJwkThumbprint,
  compactDecrypt,
  exportJWK,
  generateKeyPair,
  importJWK,
  type CryptoKey,
  type JWK,
} from 'jose';
import { toDate, type Db, type Queryable } from '../../shared/db/db.js';
import { EmutrackError } from '../../shared/errors/emutrack-error.js';

/** A key that signs id_tokens now. */
export interface SigningKey {
  kid: string;
  alg: 'RS256';
  privateKey: CryptoKey;
}

/** A signing key as the operator sees it (`emutrack oauth-keys rotate` lists them). */
export interface SigningKeyInfo {
  kid: string;
  createdAt: Date;
  /** When a newer key took over; null for the key that signs now. */
  retiredAt: Date | null;
  /** Until when a retired key stays in the JWKS; null while it signs. */
  publishUntil: Date | null;
}

export interface SigningKeyStoreOptions {
  /** Resolves the secret the private keys are encrypted with (see resolveKeySecret). */
  secret: () => Promise<Uint8Array>;
  /** The longest lifetime of a token signed with a key: how long a retired key stays published. */
  tokenLifetimeSeconds: number;
  /** Milliseconds since the epoch. Default Date.now. */
  clock?: () => number;
  /** RSA modulus of new keys. Default 2048 (RFC 7518 3.3: 2048 or larger). */
  modulusLength?: number;
}

const ALG = 'RS256';
// Key wrapping with a password-derived key: PBKDF2 (p2c rounds, random salt), A256KW, A256GCM.
const KEY_ENCRYPTION = { alg: 'PBES2-HS512+A256KW', enc: 'A256GCM' } as const;
const PBES2_COUNT = 10_000;
/**
 * A process that read the current key just before a rotation may still sign with it a moment
 * later; the retired key is kept published this much longer than its tokens' lifetime.
 */
const PUBLISH_MARGIN_MS = 10 * 60 * 1000;
const KEYS_LOCK = 'emutrack.oauth.signing-keys';

interface KeyRow {
  kid: string;
  public_jwk: JWK;
  private_jwe: string;
  created_at: Date | string;
  retired_at: Date | string | null;
  publish_until: Date | string | null;
}

/**
 * The id_token signing keys (RS256), kept in oauth_signing_keys with the private half encrypted
 * (JWE, PBES2 with the configured secret). The first key is made on first use; `rotate` adds a
 * new one that signs from then on while the old one stays in the JWKS until the last token it
 * signed has expired. The current key is looked up on every signing (one indexed row), so a
 * rotation by the CLI takes effect in running servers at once; decrypted keys are cached by kid.
 */
export class SigningKeyStore {
  private readonly decrypted = new Map<string, Promise<CryptoKey>>();
  private readonly clock: () => number;

  constructor(
    private readonly db: Db,
    private readonly options: SigningKeyStoreOptions,
  ) {
    this.clock = options.clock ?? Date.now;
  }

  /** The key that signs now (made first when there is none). */
  async current(): Promise<SigningKey> {
    let row = await this.currentRow(this.db);
    if (!row) {
      row = await this.db.transaction(async (tx) => {
        await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [KEYS_LOCK]);
        return (await this.currentRow(tx)) ?? (await this.insertKey(tx));
      });
    }
    return { kid: row.kid, alg: ALG, privateKey: await this.privateKey(row) };
  }

  /** The public keys to publish: the signing one and retired ones whose tokens may still live. */
  async jwks(): Promise<{ keys: JWK[] }> {
    const r = await this.db.query<Pick<KeyRow, 'public_jwk'>>(
      `SELECT public_jwk FROM oauth_signing_keys
        WHERE retired_at IS NULL OR publish_until > $1
        ORDER BY created_at DESC`,
      [new Date(this.clock())],
    );
    return { keys: r.rows.map((row) => row.public_jwk) };
  }

  /** Every stored key, newest first. */
  async list(): Promise<SigningKeyInfo[]> {
    const r = await this.db.query<KeyRow>(
      'SELECT kid, created_at, retired_at, publish_until FROM oauth_signing_keys ORDER BY created_at DESC',
    );
    return r.rows.map((row) => ({
      kid: row.kid,
      createdAt: toDate(row.created_at),
      retiredAt: row.retired_at === null ? null : toDate(row.retired_at),
      publishUntil: row.publish_until === null ? null : toDate(row.publish_until),
    }));
  }

  /**
   * Adds a new signing key and retires the current one (kept published until its tokens have
   * expired). Returns the new key's kid and the kids it retired.
   */
  async rotate(): Promise<{ kid: string; retired: string[] }> {
    return this.db.transaction(async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [KEYS_LOCK]);
      const now = this.clock();
      const publishUntil = new Date(
        now + this.options.tokenLifetimeSeconds * 1000 + PUBLISH_MARGIN_MS,
      );
      const retired = await tx.query<{ kid: string }>(
        `UPDATE oauth_signing_keys SET retired_at = $1, publish_until = $2
          WHERE retired_at IS NULL RETURNING kid`,
        [new Date(now), publishUntil],
      );
      const row = await this.insertKey(tx);
      return { kid: row.kid, retired: retired.rows.map((r) => r.kid) };
    });
  }

  private async currentRow(db: Queryable): Promise<KeyRow | undefined> {
    const r = await db.query<KeyRow>(
      `SELECT kid, public_jwk, private_jwe, created_at, retired_at, publish_until
         FROM oauth_signing_keys WHERE retired_at IS NULL ORDER BY created_at DESC LIMIT 1`,
    );
    return r.rows[0];
  }

  private async insertKey(db: Queryable): Promise<KeyRow> {
    const { publicKey, privateKey } = await generateKeyPair(ALG, {
      modulusLength: this.options.modulusLength ?? 2048,
      extractable: true,
    });
    const publicJwk = await exportJWK(publicKey);
    // RFC 7638 thumbprint: a kid that names the key itself.
    const kid = await calculateJwkThumbprint(publicJwk, 'sha256');
    const published: JWK = {
      kty: publicJwk.kty,
      n: publicJwk.n,
      e: publicJwk.e,
      kid,
      alg: ALG,
      use: 'sig',
    };
    const plaintext = new TextEncoder().encode(JSON.stringify(await exportJWK(privateKey)));
    const jwe = await new CompactEncrypt(plaintext)
      .setProtectedHeader({ ...KEY_ENCRYPTION, kid })
      .setKeyManagementParameters({ p2c: PBES2_COUNT })
      .encrypt(await this.options.secret());
    const r = await db.query<KeyRow>(
      `INSERT INTO oauth_signing_keys (kid, alg, public_jwk, private_jwe, created_at)
       VALUES ($1, $2, $3, $4, $5)
       RETURNING kid, public_jwk, private_jwe, created_at, retired_at, publish_until`,
      [kid, ALG, JSON.stringify(published), jwe, new Date(this.clock())],
    );
    this.decrypted.set(kid, Promise.resolve(privateKey));
    return r.rows[0]!;
  }

  private privateKey(row: KeyRow): Promise<CryptoKey> {
    let key = this.decrypted.get(row.kid);
    if (!key) {
      key = this.decrypt(row);
      this.decrypted.set(row.kid, key);
      key.catch(() => this.decrypted.delete(row.kid));
    }
    return key;
  }

  private async decrypt(row: KeyRow): Promise<CryptoKey> {
    let plaintext: Uint8Array;
    try {
      const result = await compactDecrypt(row.private_jwe, await this.options.secret(), {
        keyManagementAlgorithms: [KEY_ENCRYPTION.alg],
        contentEncryptionAlgorithms: [KEY_ENCRYPTION.enc],
        maxPBES2Count: PBES2_COUNT,
      });
      if (result.protectedHeader.kid !== row.kid) throw new Error('kid mismatch');
      plaintext = result.plaintext;
    } catch (err) {
      throw new EmutrackError(
        'oauth_signing_key_unreadable',
        `signing key ${row.kid} cannot be decrypted: was it encrypted with another OAUTH_KEY_SECRET?`,
        { cause: err },
      );
    }
    const jwk = JSON.parse(new TextDecoder().decode(plaintext)) as JWK;
    return (await importJWK(jwk, ALG)) as CryptoKey;
  }
}
