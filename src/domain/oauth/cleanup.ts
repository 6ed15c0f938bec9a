import type { Db } from '../../shared/db/db.js';

/**
 * How long a code row is kept after it expired: a replay within this time still finds the
 * consumed code and revokes the token it gave (RFC 6749 4.1.2); later it is only unknown.
 */
export const CODE_RETENTION_AFTER_EXPIRY_SECONDS = 86_400;

export interface OAuthCleanup {
  codes: number;
  consents: number;
  signingKeys: number;
}

/**
 * Deletes what has expired: codes (a day after their expiry), consents past their expiry, and
 * retired signing keys no token can need any more. Safe to run from several processes.
 */
export async function deleteExpiredOAuthRows(
  db: Db,
  now: Date = new Date(),
): Promise<OAuthCleanup> {
  const codeCutoff = new Date(now.getTime() - CODE_RETENTION_AFTER_EXPIRY_SECONDS * 1000);
  const codes = await db.query('DELETE FROM oauth_codes WHERE expires_at < $1', [codeCutoff]);
  const consents = await db.query('DELETE FROM oauth_consents WHERE expires_at <= $1', [now]);
  const keys = await db.query(
    'DELETE FROM oauth_signing_keys WHERE retired_at IS NOT NULL AND publish_until <= $1',
    [now],
  );
  return { codes: codes.rowCount, consents: consents.rowCount, signingKeys: keys.rowCount };
}
