import { createHash, randomBytes } from 'node:crypto';
import { toDate, type Queryable } from '../../shared/db/db.js';
import { AccountError } from './account-error.js';
import { findUserById, userOf, type User, type UserRow } from './users.js';
import { firstMissingScope, isScope, normalizeScopes, scopesOfRole } from './scopes.js';

/**
 * Credentials: web sessions (`webapp`), API keys (`api`) and OAuth access tokens (`oauth`) are
 * one kind of thing. The secret is `<issuer>_<43 base64url characters>` (32 random bytes) and is
 * shown once, when issued; the database keeps only its SHA-256. A fast hash is safe here because
 * the secret is 256 random bits, not something a person chose: there is no dictionary to try, and
 * 2^256 guesses are out of reach at any hashing speed. A slow hash (scrypt, as for passwords)
 * would only add its cost to every authenticated request.
 */
export type Issuer = 'webapp' | 'api' | 'oauth';

export const ISSUERS: readonly Issuer[] = ['webapp', 'api', 'oauth'];

export interface Credential {
  /** Decimal string of the database id (internal; never shown to clients). */
  credentialId: string;
  userId: string;
  issuer: Issuer;
  /** Public handle: listings show it and revocation takes it. */
  revokeId: string;
  /** The secret with its middle hidden, e.g. `api_Xy3k****Q9aZ`. */
  maskedApiKey: string;
  name: string;
  scopes: string[];
  activeFrom: Date;
  expiresAt: Date;
  revokedAt: Date | null;
  dailyTokenLimit: number;
  /** The OAuth client an oauth credential was issued to; null otherwise. */
  oauthClientId: string | null;
  createdAt: Date;
}

export interface IssueCredentialInput {
  userId: string;
  issuer: Issuer;
  /** Shown in listings. Default "". At most 100 characters. */
  name?: string;
  /** Scopes of the catalogue that the user holds; each unknown or unheld one is refused. */
  scopes: readonly string[];
  /** Default now. */
  activeFrom?: Date;
  /** Default activeFrom + defaultLifetimeSeconds; at most now + maxLifetimeSeconds. */
  expiresAt?: Date;
  /** Tokens per Shanghai service day this credential may spend. */
  dailyTokenLimit: number;
  /** Required for (and only for) issuer oauth. */
  oauthClientId?: string;
}

export interface IssueCredentialOptions {
  /** Default new Date(). */
  now?: Date;
  /** Lifetime when expiresAt is absent. Default 30 days. */
  defaultLifetimeSeconds?: number;
  /** Longest lifetime (expiresAt - now). Default 5 years (1826 days). */
  maxLifetimeSeconds?: number;
}

export const DEFAULT_CREDENTIAL_LIFETIME_SECONDS = 30 * 86_400;
export const MAX_CREDENTIAL_LIFETIME_SECONDS = 1826 * 86_400;
const SECRET_BYTES = 32;
const NAME_MAX_LENGTH = 100;
const SECRET_PATTERN = /^(webapp|api|oauth)_[A-Za-z0-9_-]{43}$/;

export interface IssuedCredential {
  /** The secret in clear: give it to its holder now, it cannot be read again. */
  secret: string;
  credential: Credential;
}

export type AuthenticationFailure = 'unknown' | 'revoked' | 'expired' | 'not_active' | 'banned';

export type AuthenticationResult =
  | { ok: true; user: User; credential: Credential }
  | {
      ok: false;
      reason: AuthenticationFailure;
      /** The credential found (absent for unknown): lets a caller say which key failed. */
      credential?: Credential;
    };

/** SHA-256 of the secret as written: what the credentials table stores. */
export function secretHash(secret: string): Buffer {
  return createHash('sha256').update(secret, 'utf8').digest();
}

/** `<issuer>_<first 4>****<last 4>`: enough to tell keys apart, too little to use. */
export function maskSecret(secret: string): string {
  const cut = secret.indexOf('_');
  const body = secret.slice(cut + 1);
  return `${secret.slice(0, cut)}_${body.slice(0, 4)}****${body.slice(-4)}`;
}

/** Whether a string has the shape of a credential secret (checked before any query). */
export function looksLikeSecret(value: string): boolean {
  return SECRET_PATTERN.test(value);
}

const CREDENTIAL_COLUMNS = `c.id::text AS credential_id, c.user_id::text AS user_id, c.issuer,
  c.revoke_id, c.masked, c.name, c.scopes, c.active_from, c.expires_at, c.revoked_at,
  c.daily_token_limit, c.oauth_client_id, c.created_at`;

interface CredentialRow {
  credential_id: string;
  user_id: string;
  issuer: Issuer;
  revoke_id: string;
  masked: string;
  name: string;
  scopes: string[];
  active_from: Date | string;
  expires_at: Date | string;
  revoked_at: Date | string | null;
  daily_token_limit: number;
  oauth_client_id: string | null;
  created_at: Date | string;
}

function credentialOf(row: CredentialRow): Credential {
  return {
    credentialId: row.credential_id,
    userId: row.user_id,
    issuer: row.issuer,
    revokeId: row.revoke_id,
    maskedApiKey: row.masked,
    name: row.name,
    scopes: row.scopes,
    activeFrom: toDate(row.active_from),
    expiresAt: toDate(row.expires_at),
    revokedAt: row.revoked_at === null ? null : toDate(row.revoked_at),
    dailyTokenLimit: Number(row.daily_token_limit),
    oauthClientId: row.oauth_client_id,
    createdAt: toDate(row.created_at),
  };
}

function invalid(field: string, message: string): AccountError {
  return new AccountError('invalid_param', `${field}: ${message}`, field);
}

/**
 * Issues a credential and returns its secret once. Refuses (AccountError) an unknown user
 * (user_not_found), an unknown scope (invalid_param, field `scopes`), a scope the user does not
 * hold (insufficient_scope, naming it), an expiry not after activeFrom or beyond the longest
 * lifetime, a negative or fractional daily limit, and an oauth credential without its client.
 */
export async function issueCredential(
  db: Queryable,
  input: IssueCredentialInput,
  options: IssueCredentialOptions = {},
): Promise<IssuedCredential> {
  const now = options.now ?? new Date();
  const user = await findUserById(db, input.userId);
  if (!user) throw new AccountError('user_not_found', `no user ${input.userId}`, 'userId');
  if (!ISSUERS.includes(input.issuer)) throw invalid('issuer', 'must be webapp, api or oauth');
  const name = input.name ?? '';
  if (name.length > NAME_MAX_LENGTH) throw invalid('name', `at most ${NAME_MAX_LENGTH} characters`);
  const unknown = input.scopes.find((s) => !isScope(s));
  if (unknown !== undefined) throw invalid('scopes', `unknown scope ${JSON.stringify(unknown)}`);
  const missing = firstMissingScope(input.scopes, scopesOfRole(user.role));
  if (missing !== undefined) {
    throw new AccountError(
      'insufficient_scope',
      `scopes: ${missing} is beyond what user ${user.username} holds`,
      'scopes',
    );
  }
  const activeFrom = input.activeFrom ?? now;
  const lifetime = options.defaultLifetimeSeconds ?? DEFAULT_CREDENTIAL_LIFETIME_SECONDS;
  const expiresAt = input.expiresAt ?? new Date(activeFrom.getTime() + lifetime * 1000);
  if (Number.isNaN(activeFrom.getTime())) throw invalid('activeFrom', 'not a time');
  if (Number.isNaN(expiresAt.getTime())) throw invalid('expiresAt', 'not a time');
  if (expiresAt <= activeFrom) throw invalid('expiresAt', 'must be after activeFrom');
  const maxLifetime = options.maxLifetimeSeconds ?? MAX_CREDENTIAL_LIFETIME_SECONDS;
  if (expiresAt.getTime() - now.getTime() > maxLifetime * 1000) {
    throw invalid('expiresAt', `at most ${Math.floor(maxLifetime / 86_400)} days from now`);
  }
  if (
    !Number.isInteger(input.dailyTokenLimit) ||
    input.dailyTokenLimit < 0 ||
    input.dailyTokenLimit > 2 ** 31 - 1
  ) {
    throw invalid('dailyTokenLimit', 'must be a whole number from 0 to 2147483647');
  }
  if ((input.issuer === 'oauth') !== (input.oauthClientId !== undefined)) {
    throw invalid('oauthClientId', 'required for issuer oauth and only for it');
  }
  const secret = `${input.issuer}_${randomBytes(SECRET_BYTES).toString('base64url')}`;
  const revokeId = randomBytes(12).toString('base64url');
  const r = await db.query<CredentialRow>(
    `INSERT INTO credentials AS c (user_id, issuer, revoke_id, secret_hash, masked, name, scopes,
       active_from, expires_at, daily_token_limit, oauth_client_id)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
     RETURNING ${CREDENTIAL_COLUMNS}`,
    [
      input.userId,
      input.issuer,
      revokeId,
      secretHash(secret),
      maskSecret(secret),
      name,
      normalizeScopes(input.scopes),
      activeFrom,
      expiresAt,
      input.dailyTokenLimit,
      input.oauthClientId ?? null,
    ],
  );
  return { secret, credential: credentialOf(r.rows[0]!) };
}

/**
 * Who a secret belongs to, or why it is refused: unknown (no such secret, or not shaped like
 * one), revoked, expired, not_active (activeFrom in the future) or banned (its user is). One
 * indexed query; no secret is compared in JavaScript, so there is no timing to learn from.
 */
export async function authenticateSecret(
  db: Queryable,
  secret: string,
  now: Date = new Date(),
): Promise<AuthenticationResult> {
  if (!looksLikeSecret(secret)) return { ok: false, reason: 'unknown' };
  const r = await db.query<
    CredentialRow & Omit<UserRow, 'created_at'> & { user_created_at: Date | string }
  >(
    `SELECT ${CREDENTIAL_COLUMNS}, u.username, u.email, u.role, u.banned_at, u.created_at AS user_created_at,
            u.password_changed_at
       FROM credentials c JOIN users u ON u.id = c.user_id
      WHERE c.secret_hash = $1`,
    [secretHash(secret)],
  );
  const row = r.rows[0];
  if (!row) return { ok: false, reason: 'unknown' };
  const credential = credentialOf(row);
  if (credential.revokedAt !== null) return { ok: false, reason: 'revoked', credential };
  if (credential.expiresAt <= now) return { ok: false, reason: 'expired', credential };
  if (credential.activeFrom > now) return { ok: false, reason: 'not_active', credential };
  if (row.banned_at !== null) return { ok: false, reason: 'banned', credential };
  return { ok: true, user: userOf({ ...row, created_at: row.user_created_at }), credential };
}

/** The credential of a revokeId (optionally only when it is this user's). */
export async function findCredentialByRevokeId(
  db: Queryable,
  revokeId: string,
  userId?: string,
): Promise<Credential | undefined> {
  const r = await db.query<CredentialRow>(
    `SELECT ${CREDENTIAL_COLUMNS} FROM credentials c
      WHERE c.revoke_id = $1 AND ($2::bigint IS NULL OR c.user_id = $2::bigint)`,
    [revokeId, userId ?? null],
  );
  return r.rows[0] && credentialOf(r.rows[0]);
}

/**
 * Revokes the credential of `revokeId` (only when it is `userId`'s, when given). Returns it as
 * revoked, or undefined when there is none. Revoking twice keeps the first revokedAt.
 */
export async function revokeCredential(
  db: Queryable,
  revokeId: string,
  options: { userId?: string } = {},
): Promise<Credential | undefined> {
  const r = await db.query<CredentialRow>(
    `UPDATE credentials c SET revoked_at = coalesce(revoked_at, now())
      WHERE revoke_id = $1 AND ($2::bigint IS NULL OR user_id = $2::bigint)
      RETURNING ${CREDENTIAL_COLUMNS}`,
    [revokeId, options.userId ?? null],
  );
  return r.rows[0] && credentialOf(r.rows[0]);
}

/**
 * Revokes every unrevoked oauth credential issued to an OAuth client (only `userId`'s, when
 * given: a user taking back an authorization). Returns the revokeIds revoked.
 */
export async function revokeOauthCredentials(
  db: Queryable,
  oauthClientId: string,
  options: { userId?: string } = {},
): Promise<string[]> {
  const r = await db.query<{ revoke_id: string }>(
    `UPDATE credentials SET revoked_at = now()
      WHERE issuer = 'oauth' AND oauth_client_id = $1 AND revoked_at IS NULL
        AND ($2::bigint IS NULL OR user_id = $2::bigint)
      RETURNING revoke_id`,
    [oauthClientId, options.userId ?? null],
  );
  return r.rows.map((row) => row.revoke_id);
}

export interface ListCredentialsOptions {
  /** Only these issuers. Default all. */
  issuers?: readonly Issuer[];
  /** Also revoked and expired ones. Default false. */
  includeInactive?: boolean;
  /** Default new Date() (what "expired" is measured against). */
  now?: Date;
}

/** A user's credentials, newest first. */
export async function listCredentials(
  db: Queryable,
  userId: string,
  options: ListCredentialsOptions = {},
): Promise<Credential[]> {
  const r = await db.query<CredentialRow>(
    `SELECT ${CREDENTIAL_COLUMNS} FROM credentials c
      WHERE c.user_id = $1 AND c.issuer = ANY($2::text[])
        AND ($3 OR (c.revoked_at IS NULL AND c.expires_at > $4))
      ORDER BY c.created_at DESC, c.id DESC`,
    [
      userId,
      options.issuers ?? ISSUERS,
      options.includeInactive ?? false,
      options.now ?? new Date(),
    ],
  );
  return r.rows.map(credentialOf);
}
