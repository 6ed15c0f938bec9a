import { toDate, type Db } from '../../shared/db/db.js';
import { OAuthClientNotFoundError } from './oauth-not-found-error.js';
import { withdrawGrants, type WithdrawnGrants } from './token-revocation.js';

/** An app the user has authorized and not revoked (live tokens or a remembered consent). */
export interface Authorization {
  clientId: string;
  name: string;
  homepageUrl: string | null;
  ownerUsername: string;
  /** Every scope the app holds for the user (live tokens and remembered consents). */
  scopes: string[];
  /** When the user last allowed it. */
  authorizedAt: Date;
  /** When one of its tokens was last used; null when never. */
  lastUsedAt: Date | null;
  /** Live (unrevoked, unexpired) access tokens. */
  activeTokens: number;
}

interface AuthorizationRow {
  client_id: string;
  name: string;
  homepage_url: string | null;
  owner_username: string;
  scopes: string[] | null;
  authorized_at: Date | string;
  last_used_at: Date | string | null;
  active_tokens: number;
}

/** The apps a user has authorized, most recently authorized first. */
export async function listAuthorizations(
  db: Db,
  userId: string,
  now: Date = new Date(),
): Promise<Authorization[]> {
  const r = await db.query<AuthorizationRow>(
    `WITH grants AS (
       SELECT oauth_client_id AS client_id, scopes, created_at AS at, last_used_at, 1 AS token
         FROM credentials
        WHERE user_id = $1 AND issuer = 'oauth' AND oauth_client_id IS NOT NULL
          AND revoked_at IS NULL AND expires_at > $2
       UNION ALL
       SELECT client_id, scopes, granted_at, NULL, 0
         FROM oauth_consents WHERE user_id = $1 AND expires_at > $2
     )
     SELECT c.id AS client_id, c.name, c.homepage_url, u.username AS owner_username,
            (SELECT array_agg(DISTINCT s ORDER BY s) FROM grants g2, unnest(g2.scopes) s
              WHERE g2.client_id = c.id) AS scopes,
            max(g.at) AS authorized_at, max(g.last_used_at) AS last_used_at,
            sum(g.token)::int AS active_tokens
       FROM grants g JOIN oauth_clients c ON c.id = g.client_id JOIN users u ON u.id = c.owner_id
      GROUP BY c.id, c.name, c.homepage_url, u.username
      ORDER BY max(g.at) DESC, c.id`,
    [userId, now],
  );
  return r.rows.map((row) => ({
    clientId: row.client_id,
    name: row.name,
    homepageUrl: row.homepage_url,
    ownerUsername: row.owner_username,
    scopes: row.scopes ?? [],
    authorizedAt: toDate(row.authorized_at),
    lastUsedAt: row.last_used_at === null ? null : toDate(row.last_used_at),
    activeTokens: Number(row.active_tokens),
  }));
}

/**
 * Revokes an app's access for one user at once: its tokens, the remembered consent and any code
 * not yet exchanged. Throws OAuthClientNotFoundError when the user had nothing granted to it.
 */
export async function revokeAuthorization(
  db: Db,
  userId: string,
  clientId: string,
  now: Date = new Date(),
): Promise<WithdrawnGrants> {
  const withdrawn = await db.transaction((tx) => withdrawGrants(tx, { clientId, userId }, now));
  if (withdrawn.tokens + withdrawn.consents + withdrawn.codes === 0)
    throw new OAuthClientNotFoundError(clientId);
  return withdrawn;
}
