import type { Queryable } from '../../shared/db/db.js';

/** Which of a client's grants to withdraw. */
export interface GrantSelection {
  clientId: string;
  /** Only this user's. Default every user's. */
  userId?: string;
  /** Only grants carrying at least one of these scopes. Default any. */
  anyOfScopes?: readonly string[];
}

export interface WithdrawnGrants {
  /** Live access tokens revoked. */
  tokens: number;
  /** Remembered consents forgotten. */
  consents: number;
  /** Authorization codes not yet exchanged, thrown away. */
  codes: number;
}

/**
 * Withdraws what a client holds for its users, at once: live access tokens (oauth credentials)
 * are revoked (the API looks credentials up on every request, so the next call fails),
 * remembered consents are forgotten (the next authorization asks again) and codes not yet
 * exchanged are thrown away (else one issued a second earlier would still give a token).
 * Run it in the caller's transaction when it goes with another change.
 */
export async function withdrawGrants(
  db: Queryable,
  selection: GrantSelection,
  now: Date,
): Promise<WithdrawnGrants> {
  const params = [selection.clientId, selection.userId ?? null, selection.anyOfScopes ?? null];
  const tokens = await db.query(
    `UPDATE credentials SET revoked_at = $4
      WHERE oauth_client_id = $1 AND issuer = 'oauth' AND revoked_at IS NULL AND expires_at > $4
        AND ($2::bigint IS NULL OR user_id = $2::bigint)
        AND ($3::text[] IS NULL OR scopes && $3::text[])`,
    [...params, now],
  );
  const consents = await db.query(
    `DELETE FROM oauth_consents
      WHERE client_id = $1 AND ($2::bigint IS NULL OR user_id = $2::bigint)
        AND ($3::text[] IS NULL OR scopes && $3::text[])`,
    params,
  );
  const codes = await db.query(
    `DELETE FROM oauth_codes
      WHERE client_id = $1 AND consumed_at IS NULL AND ($2::bigint IS NULL OR user_id = $2::bigint)
        AND ($3::text[] IS NULL OR scopes && $3::text[])`,
    params,
  );
  return { tokens: tokens.rowCount, consents: consents.rowCount, codes: codes.rowCount };
}
