import { toDate, type Queryable } from '../../shared/db/db.js';

export type ClientStatus = 'active' | 'disabled';
export type ScopeReviewStatus = 'pending' | 'approved' | 'rejected';

/** One requested scope and where its review stands. */
export interface ClientScope {
  scope: string;
  status: ScopeReviewStatus;
  requestedAt: Date;
  /** Null while pending. */
  reviewedAt: Date | null;
  /** The administrator's user id; null while pending (or when that user is gone). */
  reviewedBy: string | null;
  reviewedByUsername: string | null;
}

/** An OAuth client as the registry sees it (public: there is no secret). */
export interface OAuthClient {
  clientId: string;
  ownerId: string;
  ownerUsername: string;
  name: string;
  description: string | null;
  homepageUrl: string | null;
  redirectUris: string[];
  status: ClientStatus;
  statusChangedAt: Date | null;
  /** In the order they were requested. */
  scopes: ClientScope[];
  createdAt: Date;
  updatedAt: Date;
}

interface ClientRow {
  client_id: string;
  owner_id: string;
  owner_username: string;
  name: string;
  description: string | null;
  homepage_url: string | null;
  redirect_uris: string[];
  status: ClientStatus;
  status_changed_at: Date | string | null;
  created_at: Date | string;
  updated_at: Date | string;
  scopes: Array<{
    scope: string;
    status: ScopeReviewStatus;
    requested_at: string;
    reviewed_at: string | null;
    reviewed_by: string | null;
    reviewed_by_username: string | null;
  }> | null;
}

const toDateOrNull = (v: Date | string | null) => (v === null ? null : toDate(v));

/** The SELECT of whole clients with their scopes; callers add WHERE (alias c) and ORDER BY. */
export const CLIENT_SELECT = `
  SELECT c.id AS client_id, c.owner_id::text AS owner_id, u.username AS owner_username, c.name,
         c.description, c.homepage_url, c.redirect_uris, c.status, c.status_changed_at,
         c.created_at, c.updated_at,
         (SELECT json_agg(json_build_object(
                   'scope', s.scope, 'status', s.status, 'requested_at', s.requested_at,
                   'reviewed_at', s.reviewed_at, 'reviewed_by', s.reviewed_by::text,
                   'reviewed_by_username', r.username)
                 ORDER BY s.requested_at, s.scope)
            FROM oauth_client_scopes s LEFT JOIN users r ON r.id = s.reviewed_by
           WHERE s.client_id = c.id) AS scopes
    FROM oauth_clients c JOIN users u ON u.id = c.owner_id`;

export function clientOf(row: ClientRow): OAuthClient {
  return {
    clientId: row.client_id,
    ownerId: row.owner_id,
    ownerUsername: row.owner_username,
    name: row.name,
    description: row.description,
    homepageUrl: row.homepage_url,
    redirectUris: row.redirect_uris,
    status: row.status,
    statusChangedAt: toDateOrNull(row.status_changed_at),
    scopes: (row.scopes ?? []).map((s) => ({
      scope: s.scope,
      status: s.status,
      requestedAt: new Date(s.requested_at),
      reviewedAt: s.reviewed_at === null ? null : new Date(s.reviewed_at),
      reviewedBy: s.reviewed_by,
      reviewedByUsername: s.reviewed_by_username,
    })),
    createdAt: toDate(row.created_at),
    updatedAt: toDate(row.updated_at),
  };
}

/** Clients matching a WHERE clause over alias `c` (and `u`, the owner). */
export async function selectClients(
  db: Queryable,
  where: string,
  params: unknown[],
  orderBy = 'c.created_at, c.id',
): Promise<OAuthClient[]> {
  const r = await db.query<ClientRow>(
    `${CLIENT_SELECT} WHERE ${where} ORDER BY ${orderBy}`,
    params,
  );
  return r.rows.map(clientOf);
}

/** One client by its client_id (whoever owns it), or undefined. */
export async function findClient(
  db: Queryable,
  clientId: string,
): Promise<OAuthClient | undefined> {
  const [client] = await selectClients(db, 'c.id = $1', [clientId]);
  return client;
}
