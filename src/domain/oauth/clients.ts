import type { Role } from '../accounts/scopes.js';
import { randomBytes } from 'node:crypto';
import type { Db } from '../../shared/db/db.js';
import {
  checkClientInput,
  checkDescription,
  checkHomepageUrl,
  checkName,
  checkRedirectUris,
  checkRequestedScopes,
  type ClientInput,
  type ClientPatch,
} from './client-input.js';
import { findClient, selectClients, type OAuthClient } from './client-records.js';
import { OAuthInputError } from './oauth-input-error.js';
import { OAuthClientNotFoundError } from './oauth-not-found-error.js';
import { withdrawGrants } from './token-revocation.js';

/** Who registers or changes a client: its owner. An administrator's own scopes need no review. */
export interface ClientOwner {
  userId: string;
  role: Role;
}

/** Most clients one user may register (a bound on what one account can make the admins review). */
export const MAX_CLIENTS_PER_USER = 25;

/** A new public client_id: 16 random bytes, base64url (not guessable, so not enumerable). */
function newClientId(): string {
  return `emc_${randomBytes(16).toString('base64url')}`;
}

/**
 * Inserts the scope rows of `scopes` for a client: pending, or approved at once when the owner
 * is an administrator (the spec's review applies to ordinary users' clients).
 */
async function addScopes(
  db: Pick<Db, 'query'>,
  clientId: string,
  scopes: readonly string[],
  owner: ClientOwner,
  now: Date,
): Promise<void> {
  if (scopes.length === 0) return;
  const approved = owner.role === 'admin';
  // requested_at steps by a microsecond per scope so that listings keep the requested order.
  await db.query(
    `INSERT INTO oauth_client_scopes (client_id, scope, status, requested_at, reviewed_at, reviewed_by)
     SELECT $1, s.scope, $3, $4::timestamptz + (s.n - 1) * interval '1 microsecond',
            CASE WHEN $3 = 'approved' THEN $4::timestamptz END,
            CASE WHEN $3 = 'approved' THEN $5::bigint END
       FROM unnest($2::text[]) WITH ORDINALITY AS s (scope, n)`,
    [clientId, scopes, approved ? 'approved' : 'pending', now, owner.userId],
  );
}

/** Registers a client for its owner. Throws OAuthInputError naming the first bad field. */
export async function createClient(
  db: Db,
  owner: ClientOwner,
  input: ClientInput,
  now: Date = new Date(),
): Promise<OAuthClient> {
  const checked = checkClientInput(input);
  const clientId = newClientId();
  await db.transaction(async (tx) => {
    // One owner's registrations queue here, so two at once cannot both pass the limit.
    await tx.query('SELECT 1 FROM users WHERE id = $1 FOR UPDATE', [owner.userId]);
    const count = await tx.query<{ n: string }>(
      'SELECT count(*)::text AS n FROM oauth_clients WHERE owner_id = $1',
      [owner.userId],
    );
    if (Number(count.rows[0]!.n) >= MAX_CLIENTS_PER_USER) {
      throw new OAuthInputError(
        'clients',
        `at most ${MAX_CLIENTS_PER_USER} clients per user; delete one you no longer use`,
      );
    }
    await tx.query(
      `INSERT INTO oauth_clients (id, owner_id, name, description, homepage_url, redirect_uris,
         created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $7)`,
      [
        clientId,
        owner.userId,
        checked.name,
        checked.description,
        checked.homepageUrl,
        checked.redirectUris,
        now,
      ],
    );
    await addScopes(tx, clientId, checked.requestedScopes, owner, now);
  });
  return (await findClient(db, clientId))!;
}

/** The owner's clients, oldest first. */
export async function listOwnClients(db: Db, ownerId: string): Promise<OAuthClient[]> {
  return selectClients(db, 'c.owner_id = $1', [ownerId]);
}

/** One of the owner's clients; another user's (or an unknown) client is not found. */
export async function getOwnClient(
  db: Db,
  ownerId: string,
  clientId: string,
): Promise<OAuthClient> {
  const client = await findClient(db, clientId);
  if (!client || client.ownerId !== ownerId) throw new OAuthClientNotFoundError(clientId);
  return client;
}

/**
 * Changes the owner's client. New scopes are reviewed like the first ones (already reviewed
 * scopes keep their review); a scope no longer requested is dropped, and with it the tokens,
 * consents and codes that carry it. Redirect URIs are replaced whole.
 */
export async function updateOwnClient(
  db: Db,
  owner: ClientOwner,
  clientId: string,
  patch: ClientPatch,
  now: Date = new Date(),
): Promise<OAuthClient> {
  const name = patch.name === undefined ? undefined : checkName(patch.name);
  const redirectUris =
    patch.redirectUris === undefined ? undefined : checkRedirectUris(patch.redirectUris);
  const scopes =
    patch.requestedScopes === undefined ? undefined : checkRequestedScopes(patch.requestedScopes);
  const description = 'description' in patch ? checkDescription(patch.description) : undefined;
  const homepageUrl = 'homepageUrl' in patch ? checkHomepageUrl(patch.homepageUrl) : undefined;
  await db.transaction(async (tx) => {
    const found = await tx.query<{ owner_id: string }>(
      'SELECT owner_id::text AS owner_id FROM oauth_clients WHERE id = $1 FOR UPDATE',
      [clientId],
    );
    if (found.rows[0]?.owner_id !== owner.userId) throw new OAuthClientNotFoundError(clientId);
    await tx.query(
      `UPDATE oauth_clients SET
         name = coalesce($2, name),
         redirect_uris = coalesce($3, redirect_uris),
         description = CASE WHEN $4 THEN $5 ELSE description END,
         homepage_url = CASE WHEN $6 THEN $7 ELSE homepage_url END,
         updated_at = $8
       WHERE id = $1`,
      [
        clientId,
        name ?? null,
        redirectUris ?? null,
        'description' in patch,
        description ?? null,
        'homepageUrl' in patch,
        homepageUrl ?? null,
        now,
      ],
    );
    if (scopes) {
      const dropped = await tx.query<{ scope: string }>(
        `DELETE FROM oauth_client_scopes WHERE client_id = $1 AND NOT (scope = ANY($2::text[]))
         RETURNING scope`,
        [clientId, scopes],
      );
      const kept = await tx.query<{ scope: string }>(
        'SELECT scope FROM oauth_client_scopes WHERE client_id = $1',
        [clientId],
      );
      const have = new Set(kept.rows.map((r) => r.scope));
      await addScopes(
        tx,
        clientId,
        scopes.filter((s) => !have.has(s)),
        owner,
        now,
      );
      if (dropped.rows.length > 0) {
        await withdrawGrants(tx, { clientId, anyOfScopes: dropped.rows.map((r) => r.scope) }, now);
      }
    }
  });
  return (await findClient(db, clientId))!;
}

/** Deletes the owner's client; its live tokens are revoked first (they stay listed as revoked). */
export async function deleteOwnClient(
  db: Db,
  ownerId: string,
  clientId: string,
  now: Date = new Date(),
): Promise<void> {
  await db.transaction(async (tx) => {
    const found = await tx.query<{ owner_id: string }>(
      'SELECT owner_id::text AS owner_id FROM oauth_clients WHERE id = $1 FOR UPDATE',
      [clientId],
    );
    if (found.rows[0]?.owner_id !== ownerId) throw new OAuthClientNotFoundError(clientId);
    await withdrawGrants(tx, { clientId }, now);
    await tx.query('DELETE FROM oauth_clients WHERE id = $1', [clientId]);
  });
}
