import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueCredential } from '../../src/domain/accounts/credentials.js';
import type { User } from '../../src/domain/accounts/users.js';
import { useTestDatabase } from '../helpers/test-db.js';
import { CALLBACK, makeUser } from './oauth-fixtures.js';
import { oauthApp, signIn, type TestBrowser } from './oauth-harness.js';

const database = useTestDatabase();
let app: Awaited<ReturnType<typeof oauthApp>>;
let alice: User;
let bob: User;
let admin: User;
let aliceBrowser: TestBrowser;
let bobBrowser: TestBrowser;
let adminBrowser: TestBrowser;

beforeAll(async () => {
  const { db } = database.current;
  app = await oauthApp(db);
  [alice, bob, admin] = [await makeUser(db), await makeUser(db), await makeUser(db, 'admin')];
  [aliceBrowser, bobBrowser, adminBrowser] = [
    await signIn(db, alice),
    await signIn(db, bob),
    await signIn(db, admin),
  ];
});
afterAll(async () => app?.close());

type Json = Record<string, unknown> & { data?: Record<string, unknown> & { items?: unknown[] } };

async function call(
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
  url: string,
  browser: TestBrowser | { bearer: string } | undefined,
  body?: unknown,
) {
  const headers: Record<string, string> = {};
  if (browser && 'cookie' in browser) headers.cookie = browser.cookie;
  if (browser && 'bearer' in browser) headers.authorization = `Bearer ${browser.bearer}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const r = await app.inject({
    method,
    url,
    headers,
    ...(body !== undefined ? { payload: JSON.stringify(body) } : {}),
  });
  return { status: r.statusCode, body: r.json() as Json };
}

const registration = {
  name: 'Train Board',
  redirectUris: [CALLBACK, 'https://board.example/cb'],
  requestedScopes: ['api.auth.me.read', 'api.history.train.read'],
  description: 'Shows boards',
  homepageUrl: 'https://board.example',
};

describe("/api/v2/oauth/clients (the signed-in user's clients)", () => {
  it('registers a client with the web session and answers its clientId and pending scopes', async () => {
    const r = await call('POST', '/api/v2/oauth/clients', aliceBrowser, registration);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.meta).toMatchObject({ cost: 0 });
    expect(r.body.data).toMatchObject({
      name: 'Train Board',
      redirectUris: registration.redirectUris,
      requestedScopes: registration.requestedScopes,
      status: 'active',
      ownerUsername: alice.username,
      homepageUrl: 'https://board.example',
    });
    expect(r.body.data!.clientId).toMatch(/^emc_/);
    expect((r.body.data!.scopes as { status: string }[]).map((s) => s.status)).toEqual([
      'pending',
      'pending',
    ]);
  });

  it('refuses the anonymous (401), API keys and OAuth tokens (403): web session only', async () => {
    expect((await call('POST', '/api/v2/oauth/clients', undefined, registration)).status).toBe(401);
    const key = await issueCredential(database.current.db, {
      userId: alice.userId,
      issuer: 'api',
      scopes: ['api.auth.me.read'],
      dailyTokenLimit: 100,
    });
    const r = await call('GET', '/api/v2/oauth/clients', { bearer: key.secret });
    expect(r.status).toBe(403);
    expect((r.body.error as { code: string }).code).toBe('forbidden');
  });

  it('names the bad field: 400 invalid_param', async () => {
    const http = await call('POST', '/api/v2/oauth/clients', aliceBrowser, {
      ...registration,
      redirectUris: ['http://board.example/cb'],
    });
    expect(http.status).toBe(400);
    expect(http.body.error).toMatchObject({
      code: 'invalid_param',
      message: expect.stringMatching(/^redirectUris\[0\]: must use https/),
    });
    const missing = await call('POST', '/api/v2/oauth/clients', aliceBrowser, { name: 'x' });
    expect(missing.status).toBe(400);
    expect((missing.body.error as { message: string }).message).toMatch(/redirectUris/);
  });

  it("lists, reads, changes and deletes one's own clients; another user's is not found", async () => {
    const created = (await call('POST', '/api/v2/oauth/clients', bobBrowser, registration)).body
      .data!;
    const id = created.clientId as string;
    const list = await call('GET', '/api/v2/oauth/clients', bobBrowser);
    expect((list.body.data!.items as { clientId: string }[]).map((c) => c.clientId)).toEqual([id]);
    expect((await call('GET', `/api/v2/oauth/clients/${id}`, bobBrowser)).status).toBe(200);
    expect((await call('GET', `/api/v2/oauth/clients/${id}`, aliceBrowser)).status).toBe(404);
    expect(
      (await call('PATCH', `/api/v2/oauth/clients/${id}`, aliceBrowser, { name: 'mine' })).status,
    ).toBe(404);
    const patched = await call('PATCH', `/api/v2/oauth/clients/${id}`, bobBrowser, {
      name: 'Renamed',
      homepageUrl: null,
    });
    expect(patched.status).toBe(200);
    expect(patched.body.data).toMatchObject({ name: 'Renamed' });
    expect(patched.body.data).not.toHaveProperty('homepageUrl');
    expect((await call('DELETE', `/api/v2/oauth/clients/${id}`, aliceBrowser)).status).toBe(404);
    const deleted = await call('DELETE', `/api/v2/oauth/clients/${id}`, bobBrowser);
    expect(deleted.body.data).toEqual({ clientId: id, deleted: true });
    expect((await call('GET', `/api/v2/oauth/clients/${id}`, bobBrowser)).status).toBe(404);
  });
});

describe('/api/v2/admin/oauth/clients (review)', () => {
  it('is for administrators only: their web session, or an API key of theirs with the review scope', async () => {
    const { db } = database.current;
    const r = await call('GET', '/api/v2/admin/oauth/clients', aliceBrowser);
    expect(r.status).toBe(403);
    expect((r.body.error as { code: string }).code).toBe('insufficient_scope');
    expect((await call('GET', '/api/v2/admin/oauth/clients', adminBrowser)).status).toBe(200);
    const key = await issueCredential(db, {
      userId: admin.userId,
      issuer: 'api',
      scopes: ['api.admin.oauth.clients.review'],
      dailyTokenLimit: 100,
    });
    expect(
      (await call('GET', '/api/v2/admin/oauth/clients?status=all', { bearer: key.secret })).status,
    ).toBe(200);
  });

  it("refuses to let an app request an administrators' scope", async () => {
    const r = await call('POST', '/api/v2/oauth/clients', adminBrowser, {
      ...registration,
      requestedScopes: ['api.admin.oauth.clients.review'],
    });
    expect(r.status).toBe(400);
    expect((r.body.error as { message: string }).message).toMatch(
      /^requestedScopes\[0\]: .*administrators/,
    );
  });

  it('refuses to let an app request api.auth.credentials.manage (managing credentials is never delegated)', async () => {
    const r = await call('POST', '/api/v2/oauth/clients', aliceBrowser, {
      ...registration,
      requestedScopes: ['api.auth.me.read', 'api.auth.credentials.manage'],
    });
    expect(r.status).toBe(400);
    expect((r.body.error as { message: string }).message).toMatch(
      /^requestedScopes\[1\]: api\.auth\.credentials\.manage cannot be requested by an app/,
    );
  });

  it('lists pending clients, approves and rejects scopes, disables, revokes tokens', async () => {
    const { db } = database.current;
    const created = (await call('POST', '/api/v2/oauth/clients', aliceBrowser, registration)).body
      .data!;
    const id = created.clientId as string;
    const pending = await call('GET', '/api/v2/admin/oauth/clients', adminBrowser);
    expect((pending.body.data!.items as { clientId: string }[]).map((c) => c.clientId)).toContain(
      id,
    );
    const reviewed = await call('PATCH', `/api/v2/admin/oauth/clients/${id}`, adminBrowser, {
      scopes: { 'api.auth.me.read': 'approved', 'api.history.train.read': 'rejected' },
    });
    expect(reviewed.status).toBe(200);
    const scopes = (reviewed.body.data!.client as { scopes: Record<string, unknown>[] }).scopes;
    expect(scopes).toEqual([
      expect.objectContaining({
        scope: 'api.auth.me.read',
        status: 'approved',
        reviewedBy: admin.username,
      }),
      expect.objectContaining({
        scope: 'api.history.train.read',
        status: 'rejected',
        reviewedBy: admin.username,
      }),
    ]);
    const unknown = await call('PATCH', `/api/v2/admin/oauth/clients/${id}`, adminBrowser, {
      scopes: { 'api.history.emu.read': 'approved' },
    });
    expect(unknown.status).toBe(400);

    const token = await issueCredential(db, {
      userId: bob.userId,
      issuer: 'oauth',
      scopes: ['api.auth.me.read'],
      dailyTokenLimit: 100,
      oauthClientId: id,
    });
    expect((await call('GET', '/api/v2/auth/me', { bearer: token.secret })).status).toBe(200);
    const revoked = await call(
      'POST',
      `/api/v2/admin/oauth/clients/${id}/revoke-tokens`,
      adminBrowser,
    );
    expect(revoked.body.data).toMatchObject({ tokens: 1 });
    // At once: the API's credential cache was told.
    expect((await call('GET', '/api/v2/auth/me', { bearer: token.secret })).status).toBe(401);

    const disabled = await call('PATCH', `/api/v2/admin/oauth/clients/${id}`, adminBrowser, {
      status: 'disabled',
    });
    expect((disabled.body.data!.client as { status: string }).status).toBe('disabled');
    expect(
      (await call('POST', '/api/v2/admin/oauth/clients/emc_none/revoke-tokens', adminBrowser))
        .status,
    ).toBe(404);
  });
});

describe('the OpenAPI document', () => {
  it('describes the client operations with their bodies, answers and auth', async () => {
    const doc = (await app.inject('/api/v2/openapi.json')).json() as {
      paths: Record<string, Record<string, Record<string, unknown>>>;
      components: {
        schemas: Record<string, { properties?: Record<string, unknown>; required?: string[] }>;
      };
    };
    const ops = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.entries(item).map(([method, op]) => [
        method.toUpperCase(),
        path,
        op.operationId,
        (op.tags as string[] | undefined)?.[0],
      ]),
    );
    expect(ops).toEqual(
      expect.arrayContaining([
        ['POST', '/api/v2/oauth/clients', 'CreateOAuthClient', 'OAuth'],
        ['GET', '/api/v2/oauth/clients', 'ListOAuthClients', 'OAuth'],
        ['GET', '/api/v2/oauth/clients/{clientId}', 'GetOAuthClient', 'OAuth'],
        ['PATCH', '/api/v2/oauth/clients/{clientId}', 'UpdateOAuthClient', 'OAuth'],
        ['DELETE', '/api/v2/oauth/clients/{clientId}', 'DeleteOAuthClient', 'OAuth'],
        ['GET', '/api/v2/admin/oauth/clients', 'ListOAuthClientsForReview', 'OAuth administration'],
        [
          'PATCH',
          '/api/v2/admin/oauth/clients/{clientId}',
          'ReviewOAuthClient',
          'OAuth administration',
        ],
        [
          'POST',
          '/api/v2/admin/oauth/clients/{clientId}/revoke-tokens',
          'RevokeOAuthClientTokens',
          'OAuth administration',
        ],
        ['GET', '/api/v2/auth/authorizations', 'ListAuthorizations', 'Auth'],
        ['DELETE', '/api/v2/auth/authorizations/{clientId}', 'RevokeAuthorization', 'Auth'],
      ]),
    );
    const create = doc.paths['/api/v2/oauth/clients']!.post!;
    const body = (
      create.requestBody as {
        content: Record<string, { schema: { properties: object; required: string[] } }>;
      }
    ).content['application/json']!.schema;
    expect(Object.keys(body.properties).sort()).toEqual([
      'description',
      'homepageUrl',
      'name',
      'redirectUris',
      'requestedScopes',
    ]);
    expect(body.required.sort()).toEqual(['name', 'redirectUris', 'requestedScopes']);
    expect(JSON.stringify((create.responses as Record<string, unknown>)['200'])).toContain(
      '#/components/schemas/OAuthClient',
    );
    expect(doc.components.schemas.OAuthClient!.required).toEqual(
      expect.arrayContaining([
        'clientId',
        'name',
        'redirectUris',
        'requestedScopes',
        'scopes',
        'status',
      ]),
    );
    expect(create.security).toEqual([{ bearerAuth: [] }, { cookieAuth: [] }]);
    expect(doc.paths['/api/v2/admin/oauth/clients']!.get!['x-scope']).toBe(
      'api.admin.oauth.clients.review',
    );
  });
});
