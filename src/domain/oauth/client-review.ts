import type { Db } from '../../shared/db/db.js';
import {
  findClient,
  selectClients,
  type ClientStatus,
  type OAuthClient,
} from './client-records.js';
import { OAuthInputError } from './oauth-input-error.js';
import { OAuthClientNotFoundError } from './oauth-not-found-error.js';
import { withdrawGrants, type WithdrawnGrants } from './token-revocation.js';

/** An administrator's decision on a client: scope reviews and/or its status. */
export interface ClientReview {
  /** Scope -> decision; each must be one the client requested. */
  scopes?: Readonly<Record<string, 'approved' | 'rejected'>>;
  /** `disabled` also revokes the client's tokens (see reviewClient). */
  status?: ClientStatus;
}

export interface ReviewListOptions {
  /** `pending`: only clients with a scope waiting for review (the default); `all`: every client. */
  filter?: 'pending' | 'all';
}

/** Clients for the administrators: those waiting for a review first-come first-served, or all. */
export async function listClientsForReview(
  db: Db,
  options: ReviewListOptions = {},
): Promise<OAuthClient[]> {
  if ((options.filter ?? 'pending') === 'all') return selectClients(db, 'true', []);
  return selectClients(
    db,
    `EXISTS (SELECT 1 FROM oauth_client_scopes p WHERE p.client_id = c.id AND p.status = 'pending')`,
    [],
  );
}

export interface ReviewOutcome {
  client: OAuthClient;
  /** What was withdrawn: rejected scopes' grants, or everything when the client was disabled. */
  withdrawn: WithdrawnGrants;
}

/**
 * Applies an administrator's review. Approving makes a scope usable by every user; rejecting
 * makes any authorization request with it fail (access_denied), and revokes the tokens that
 * already carry it (a scope approved earlier can be rejected later). Disabling refuses the
 * client at both endpoints and revokes all its tokens: a client an administrator stopped does
 * not keep acting for anyone. Enabling again restores nothing: users authorize anew.
 */
export async function reviewClient(
  db: Db,
  clientId: string,
  review: ClientReview,
  /** The administrator's user id; null from the CLI without --by. */
  reviewerId: string | null,
  now: Date = new Date(),
): Promise<ReviewOutcome> {
  const decisions = Object.entries(review.scopes ?? {});
  for (const [scope, decision] of decisions) {
    if (decision !== 'approved' && decision !== 'rejected')
      throw new OAuthInputError(`scopes.${scope}`, 'must be "approved" or "rejected"');
  }
  if (review.status !== undefined && review.status !== 'active' && review.status !== 'disabled')
    throw new OAuthInputError('status', 'must be "active" or "disabled"');
  const withdrawn: WithdrawnGrants = { tokens: 0, consents: 0, codes: 0 };
  const add = (w: WithdrawnGrants) => {
    withdrawn.tokens += w.tokens;
    withdrawn.consents += w.consents;
    withdrawn.codes += w.codes;
  };
  await db.transaction(async (tx) => {
    const found = await tx.query<{ status: ClientStatus }>(
      'SELECT status FROM oauth_clients WHERE id = $1 FOR UPDATE',
      [clientId],
    );
    const current = found.rows[0];
    if (!current) throw new OAuthClientNotFoundError(clientId);
    const requested = await tx.query<{ scope: string }>(
      'SELECT scope FROM oauth_client_scopes WHERE client_id = $1',
      [clientId],
    );
    const known = new Set(requested.rows.map((r) => r.scope));
    for (const [scope] of decisions) {
      if (!known.has(scope))
        throw new OAuthInputError(`scopes.${scope}`, 'the client does not request this scope');
    }
    for (const [scope, decision] of decisions) {
      await tx.query(
        `UPDATE oauth_client_scopes SET status = $3, reviewed_at = $4, reviewed_by = $5
          WHERE client_id = $1 AND scope = $2`,
        [clientId, scope, decision, now, reviewerId],
      );
    }
    const rejected = decisions.filter(([, d]) => d === 'rejected').map(([s]) => s);
    if (rejected.length > 0)
      add(await withdrawGrants(tx, { clientId, anyOfScopes: rejected }, now));
    if (review.status !== undefined && review.status !== current.status) {
      await tx.query(
        `UPDATE oauth_clients SET status = $2, status_changed_at = $3, status_changed_by = $4,
                updated_at = $3
          WHERE id = $1`,
        [clientId, review.status, now, reviewerId],
      );
      if (review.status === 'disabled') add(await withdrawGrants(tx, { clientId }, now));
    }
  });
  return { client: (await findClient(db, clientId))!, withdrawn };
}

/** An administrator's "revoke every token of this client" (the client itself stays as it is). */
export async function revokeAllClientTokens(
  db: Db,
  clientId: string,
  now: Date = new Date(),
): Promise<WithdrawnGrants> {
  return db.transaction(async (tx) => {
    const found = await tx.query('SELECT 1 FROM oauth_clients WHERE id = $1 FOR UPDATE', [
      clientId,
    ]);
    if (found.rowCount === 0) throw new OAuthClientNotFoundError(clientId);
    return withdrawGrants(tx, { clientId }, now);
  });
}
