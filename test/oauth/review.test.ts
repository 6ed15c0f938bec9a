import { describe, expect, it } from 'vitest';
import { issueCredential } from '../../src/domain/accounts/credentials.js';
import {
  listClientsForReview,
  reviewClient,
  revokeAllClientTokens,
} from '../../src/domain/oauth/client-review.js';
import { useTestDatabase } from '../helpers/test-db.js';
import { makeClient, makeUser } from './oauth-fixtures.js';

const database = useTestDatabase();

async function token(clientId: string, userId: string, scopes: string[]) {
  const { db } = database.current;
  return issueCredential(db, {
    userId,
    issuer: 'oauth',
    scopes,
    dailyTokenLimit: 100,
    oauthClientId: clientId,
  });
}

async function revoked(revokeId: string): Promise<boolean> {
  const r = await database.current.db.query<{ revoked: boolean }>(
    'SELECT revoked_at IS NOT NULL AS revoked FROM credentials WHERE revoke_id = $1',
    [revokeId],
  );
  return r.rows[0]!.revoked;
}

describe('scope review by administrators', () => {
  it('lists clients waiting for review, records who approved or rejected what and when', async () => {
    const { db } = database.current;
    const [owner, admin] = [await makeUser(db), await makeUser(db, 'admin')];
    const client = await makeClient(db, owner);
    expect((await listClientsForReview(db)).map((c) => c.clientId)).toContain(client.clientId);
    const at = new Date('2026-11-22T20:00:00Z');
    const { client: reviewed } = await reviewClient(
      db,
      client.clientId,
      { scopes: { 'api.auth.me.read': 'approved', 'api.records.daily.read': 'rejected' } },
      admin.userId,
      at,
    );
    expect(
      reviewed.scopes.map((s) => [
        s.scope,
        s.status,
        s.reviewedByUsername,
        s.reviewedAt?.toISOString(),
      ]),
    ).toEqual([
      ['api.auth.me.read', 'approved', admin.username, at.toISOString()],
      ['api.records.daily.read', 'rejected', admin.username, at.toISOString()],
    ]);
    expect((await listClientsForReview(db)).map((c) => c.clientId)).not.toContain(client.clientId);
    expect((await listClientsForReview(db, { filter: 'all' })).map((c) => c.clientId)).toContain(
      client.clientId,
    );
  });

  it('rejecting a scope revokes the tokens carrying it, and only those', async () => {
    const { db } = database.current;
    const [owner, admin] = [await makeUser(db), await makeUser(db, 'admin')];
    const client = await makeClient(db, owner);
    const withIt = await token(client.clientId, owner.userId, ['api.records.daily.read']);
    const without = await token(client.clientId, owner.userId, ['api.auth.me.read']);
    const { withdrawn } = await reviewClient(
      db,
      client.clientId,
      { scopes: { 'api.records.daily.read': 'rejected' } },
      admin.userId,
    );
    expect(withdrawn.tokens).toBe(1);
    expect(await revoked(withIt.credential.revokeId)).toBe(true);
    expect(await revoked(without.credential.revokeId)).toBe(false);
  });

  it('disabling a client revokes all its tokens; revoke-tokens does so without disabling', async () => {
    const { db } = database.current;
    const [owner, user, admin] = [
      await makeUser(db),
      await makeUser(db),
      await makeUser(db, 'admin'),
    ];
    const client = await makeClient(db, owner);
    const t1 = await token(client.clientId, user.userId, ['api.auth.me.read']);
    expect((await revokeAllClientTokens(db, client.clientId)).tokens).toBe(1);
    expect(await revoked(t1.credential.revokeId)).toBe(true);
    const t2 = await token(client.clientId, owner.userId, ['api.auth.me.read']);
    const { client: disabled, withdrawn } = await reviewClient(
      db,
      client.clientId,
      { status: 'disabled' },
      admin.userId,
    );
    expect(disabled.status).toBe('disabled');
    expect(withdrawn.tokens).toBe(1);
    expect(await revoked(t2.credential.revokeId)).toBe(true);
  });

  it('refuses a scope the client does not request, an unknown decision, an unknown client', async () => {
    const { db } = database.current;
    const [owner, admin] = [await makeUser(db), await makeUser(db, 'admin')];
    const client = await makeClient(db, owner);
    await expect(
      reviewClient(
        db,
        client.clientId,
        { scopes: { 'api.history.emu.read': 'approved' } },
        admin.userId,
      ),
    ).rejects.toMatchObject({ code: 'oauth_invalid_input', field: 'scopes.api.history.emu.read' });
    await expect(
      reviewClient(
        db,
        client.clientId,
        { scopes: { 'api.auth.me.read': 'maybe' as 'approved' } },
        admin.userId,
      ),
    ).rejects.toMatchObject({ code: 'oauth_invalid_input' });
    await expect(
      reviewClient(db, 'emc_nope', { status: 'disabled' }, admin.userId),
    ).rejects.toMatchObject({ code: 'oauth_client_not_found' });
  });
});
