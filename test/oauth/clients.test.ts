import { describe, expect, it } from 'vitest';
import { issueCredential } from '../../src/domain/accounts/credentials.js';
import { isEmutrackError } from '../../src/shared/errors/emutrack-error.js';
import {
  createClient,
  deleteOwnClient,
  getOwnClient,
  listOwnClients,
  MAX_CLIENTS_PER_USER,
  updateOwnClient,
} from '../../src/domain/oauth/clients.js';
import { useTestDatabase } from '../helpers/test-db.js';
import { CALLBACK, makeClient, makeUser } from './oauth-fixtures.js';

const database = useTestDatabase();

async function expectField(promise: Promise<unknown>, field: string): Promise<void> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(isEmutrackError(err, 'oauth_invalid_input'), String(err)).toBe(true);
  expect((err as { field: string }).field).toBe(field);
  expect((err as Error).message.startsWith(`${field}:`)).toBe(true);
}

describe('OAuth clients: registration by their owner', () => {
  it('registers a public client whose scopes wait for review', async () => {
    const { db } = database.current;
    const owner = await makeUser(db);
    const client = await makeClient(db, owner);
    expect(client.clientId).toMatch(/^emc_[A-Za-z0-9_-]{22}$/);
    expect(client).toMatchObject({
      ownerId: owner.userId,
      ownerUsername: owner.username,
      name: 'Timetable Viewer',
      redirectUris: [CALLBACK],
      status: 'active',
      homepageUrl: 'https://viewer.example',
    });
    expect(client.scopes.map((s) => [s.scope, s.status, s.reviewedBy])).toEqual([
      ['api.auth.me.read', 'pending', null],
      ['api.records.daily.read', 'pending', null],
    ]);
  });

  it("approves an administrator's own scopes at once (only ordinary users' clients are reviewed)", async () => {
    const { db } = database.current;
    const admin = await makeUser(db, 'admin');
    const client = await makeClient(db, admin);
    expect(
      client.scopes.every((s) => s.status === 'approved' && s.reviewedBy === admin.userId),
    ).toBe(true);
  });

  it('refuses bad inputs, naming the field', async () => {
    const { db } = database.current;
    const owner = await makeUser(db);
    await expectField(makeClient(db, owner, { name: '  ' }), 'name');
    await expectField(makeClient(db, owner, { name: 'a\nb' }), 'name');
    await expectField(makeClient(db, owner, { redirectUris: [] }), 'redirectUris');
    await expectField(
      makeClient(db, owner, {
        redirectUris: Array.from({ length: 11 }, (_, i) => `https://a.example/${i}`),
      }),
      'redirectUris',
    );
    await expectField(
      makeClient(db, owner, { redirectUris: [CALLBACK, 'http://evil.example/cb'] }),
      'redirectUris[1]',
    );
    await expectField(
      makeClient(db, owner, { redirectUris: ['https://a.example/cb#x'] }),
      'redirectUris[0]',
    );
    await expectField(
      makeClient(db, owner, { redirectUris: [CALLBACK, CALLBACK] }),
      'redirectUris[1]',
    );
    await expectField(makeClient(db, owner, { requestedScopes: [] }), 'requestedScopes');
    await expectField(
      makeClient(db, owner, { requestedScopes: ['api.auth.me.read', 'api.admin.everything'] }),
      'requestedScopes[1]',
    );
    await expectField(makeClient(db, owner, { homepageUrl: 'javascript:alert(1)' }), 'homepageUrl');
    await expectField(makeClient(db, owner, { description: 'x'.repeat(1001) }), 'description');
    expect(await listOwnClients(db, owner.userId)).toEqual([]);
  });

  it("lists only the owner's clients; another user's client is not found", async () => {
    const { db } = database.current;
    const [alice, bob] = [await makeUser(db), await makeUser(db)];
    const a1 = await makeClient(db, alice, { name: 'A1' });
    const a2 = await makeClient(db, alice, { name: 'A2' });
    await makeClient(db, bob, { name: 'B1' });
    expect((await listOwnClients(db, alice.userId)).map((c) => c.clientId)).toEqual([
      a1.clientId,
      a2.clientId,
    ]);
    expect((await getOwnClient(db, alice.userId, a1.clientId)).name).toBe('A1');
    await expect(getOwnClient(db, bob.userId, a1.clientId)).rejects.toMatchObject({
      code: 'oauth_client_not_found',
    });
    await expect(updateOwnClient(db, bob, a1.clientId, { name: 'mine' })).rejects.toMatchObject({
      code: 'oauth_client_not_found',
    });
    await expect(deleteOwnClient(db, bob.userId, a1.clientId)).rejects.toMatchObject({
      code: 'oauth_client_not_found',
    });
  });

  it('updates fields; a new scope is pending, a dropped scope takes its tokens with it', async () => {
    const { db } = database.current;
    const owner = await makeUser(db);
    const client = await makeClient(db, owner);
    const token = await issueCredential(db, {
      userId: owner.userId,
      issuer: 'oauth',
      scopes: ['api.records.daily.read'],
      dailyTokenLimit: 100,
      oauthClientId: client.clientId,
    });
    const other = await issueCredential(db, {
      userId: owner.userId,
      issuer: 'oauth',
      scopes: ['api.auth.me.read'],
      dailyTokenLimit: 100,
      oauthClientId: client.clientId,
    });
    const updated = await updateOwnClient(db, owner, client.clientId, {
      name: 'Renamed',
      description: null,
      requestedScopes: ['api.auth.me.read', 'api.history.train.read'],
      redirectUris: ['https://viewer.example/cb'],
    });
    expect(updated).toMatchObject({
      name: 'Renamed',
      description: null,
      homepageUrl: 'https://viewer.example',
      redirectUris: ['https://viewer.example/cb'],
    });
    expect(updated.scopes.map((s) => [s.scope, s.status])).toEqual([
      ['api.auth.me.read', 'pending'],
      ['api.history.train.read', 'pending'],
    ]);
    const revoked = await db.query<{ revoke_id: string; revoked: boolean }>(
      'SELECT revoke_id, revoked_at IS NOT NULL AS revoked FROM credentials WHERE oauth_client_id = $1',
      [client.clientId],
    );
    const byId = Object.fromEntries(revoked.rows.map((r) => [r.revoke_id, r.revoked]));
    expect(byId[token.credential.revokeId]).toBe(true);
    expect(byId[other.credential.revokeId]).toBe(false);
  });

  it('deletes a client after revoking its tokens', async () => {
    const { db } = database.current;
    const owner = await makeUser(db);
    const client = await makeClient(db, owner);
    const token = await issueCredential(db, {
      userId: owner.userId,
      issuer: 'oauth',
      scopes: ['api.records.daily.read'],
      dailyTokenLimit: 100,
      oauthClientId: client.clientId,
    });
    await deleteOwnClient(db, owner.userId, client.clientId);
    expect(await listOwnClients(db, owner.userId)).toEqual([]);
    const r = await db.query<{ revoked: boolean; oauth_client_id: string | null }>(
      'SELECT revoked_at IS NOT NULL AS revoked, oauth_client_id FROM credentials WHERE revoke_id = $1',
      [token.credential.revokeId],
    );
    expect(r.rows[0]).toEqual({ revoked: true, oauth_client_id: null });
  });

  it(`keeps a user to ${MAX_CLIENTS_PER_USER} clients`, async () => {
    const { db } = database.current;
    const owner = await makeUser(db);
    for (let i = 0; i < MAX_CLIENTS_PER_USER; i++) {
      await createClient(db, owner, {
        name: `c${i}`,
        redirectUris: [CALLBACK],
        requestedScopes: ['api.auth.me.read'],
      });
    }
    await expectField(makeClient(db, owner), 'clients');
  });
});
