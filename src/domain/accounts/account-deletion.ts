import type { Queryable } from '../../shared/db/db.js';
import { withdrawGrants } from '../oauth/token-revocation.js';
import { AccountError } from './account-error.js';

/**
 * Deletes an account for good. Its own credentials (web sessions, API keys, OAuth access
 * tokens), OAuth consents and codes, webhooks, site role, profile and application passwords go
 * with it (ON DELETE CASCADE). The OAuth clients it owns go too, and what they hold for other
 * users is withdrawn first: their access tokens would otherwise outlive the client (the
 * credentials' client reference is only set to null). Run it in the caller's transaction with
 * whatever else goes with the deletion (the site reassigns or deletes the account's posts).
 * Throws user_not_found.
 */
export async function deleteAccount(
  db: Queryable,
  userId: string,
  now = new Date(),
): Promise<void> {
  const clients = await db.query<{ id: string }>(
    'SELECT id FROM oauth_clients WHERE owner_id = $1 FOR UPDATE',
    [userId],
  );
  for (const client of clients.rows) await withdrawGrants(db, { clientId: client.id }, now);
  const r = await db.query('DELETE FROM users WHERE id = $1', [userId]);
  if (r.rowCount === 0) throw new AccountError('user_not_found', `no user ${userId}`, 'id');
}
