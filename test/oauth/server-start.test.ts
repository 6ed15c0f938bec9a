import { afterAll, describe, expect, it } from 'vitest';
import { parseAuthorizationRequest } from '../../src/domain/oauth/authorization-request.js';
import { issueAuthorizationCode } from '../../src/domain/oauth/authorization-grant.js';
import { s256Challenge } from '../../src/domain/oauth/pkce.js';
import { useTestDatabase } from '../helpers/test-db.js';
import { CALLBACK, makeClient, makeUser } from './oauth-fixtures.js';
import { listenOnLoopback } from './loopback-server.js';
import { oauthApp, oauthConfig } from './oauth-harness.js';

const database = useTestDatabase();
let server: Awaited<ReturnType<typeof listenOnLoopback>> | undefined;
afterAll(async () => server?.app.close());

/** Polls `check` until it holds (or the test's own timeout ends it). */
async function until(check: () => Promise<boolean>): Promise<void> {
  while (!(await check())) await new Promise((r) => setTimeout(r, 50));
}

describe('a started API server', () => {
  it('makes the first signing key at start and runs the clean-up of expired codes', async () => {
    const { db } = database.current;
    const user = await makeUser(db);
    const client = await makeClient(db, user);
    const parsed = await parseAuthorizationRequest(db, {
      response_type: 'code',
      client_id: client.clientId,
      redirect_uri: CALLBACK,
      scope: 'api.auth.me.read',
      state: 's',
      code_challenge: s256Challenge('v'.repeat(43)),
      code_challenge_method: 'S256',
    });
    if (!parsed.ok) throw new Error('bad request');
    const longAgo = new Date(Date.now() - 3 * 86_400_000);
    await issueAuthorizationCode(db, parsed.request, { ...user, authTime: longAgo }, longAgo);
    expect((await db.query('SELECT 1 FROM oauth_signing_keys')).rowCount).toBe(0);

    server = await listenOnLoopback((publicUrl) =>
      oauthApp(db, { config: oauthConfig({ PUBLIC_URL: publicUrl }) }),
    );
    await until(async () => (await db.query('SELECT 1 FROM oauth_signing_keys')).rowCount === 1);
    await until(async () => (await db.query('SELECT 1 FROM oauth_codes')).rowCount === 0);
  });
});
