import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueCredential } from '../../src/domain/accounts/credentials.js';
import { scopesOfRole } from '../../src/domain/accounts/scopes.js';
import { createUser } from '../../src/domain/accounts/users.js';
import { checkSourceSettings } from '../../src/domain/sources/source-config.js';
import { addSource, recordPullError } from '../../src/domain/sources/source-store.js';
import type { ApiApp } from '../../src/http/api/app.js';
import { makeApp } from '../api/helpers/api-harness.js';
import { useTestDatabase } from '../helpers/test-db.js';

const t = useTestDatabase();
const FAST_SCRYPT = { N: 1024, r: 8, p: 1 };
let app: ApiApp;

/** A web session (the `token` cookie's secret) of a new user with this role. */
async function sessionOf(username: string, role: 'user' | 'admin'): Promise<string> {
  const { db } = t.current;
  const user = await createUser(
    db,
    { username, password: 'correct horse battery staple', role },
    { scrypt: FAST_SCRYPT },
  );
  const { secret } = await issueCredential(db, {
    userId: user.userId,
    issuer: 'webapp',
    scopes: scopesOfRole(role),
    dailyTokenLimit: 1000,
  });
  return secret;
}

beforeAll(async () => {
  app = await makeApp(t.current.db);
});
afterAll(async () => {
  await app?.close();
});

describe('the sources page at /admin/sources', () => {
  it('sends the signed-out to /login, refuses other roles, and shows administrators every source, escaped and keyless', async () => {
    const { db } = t.current;
    const admin = await sessionOf('src-admin', 'admin');
    const user = await sessionOf('src-user', 'user');
    const get = (secret?: string, url = '/admin/sources') =>
      app.inject({
        url,
        headers: { 'accept-language': 'en', ...(secret ? { cookie: `token=${secret}` } : {}) },
      });

    const empty = await get(admin);
    expect(empty.statusCode).toBe(200);
    expect(empty.body).toContain('emutrack source add NAME --kind v2 --url BASE_URL');

    const peer = await addSource(
      db,
      checkSourceSettings({
        name: 'peer',
        kind: 'v2',
        url: 'https://peer.example',
        apiKeyEnv: 'PEER_KEY',
        every: '*/30 * * * *',
        trust: '2',
      }),
    );
    await addSource(
      db,
      checkSourceSettings({ name: 'rr', kind: 'railre', url: 'https://rr.example' }),
    );
    // Values from elsewhere (an upstream's error text, a URL) that would be markup if unescaped.
    await db.query(
      `UPDATE sources SET base_url = 'https://peer.example/<script>alert(1)</script>',
              requests = 17, refusals = 4, lines_taken = 120, lines_refused = 3,
              last_success_at = now() - interval '2 hours 5 minutes' WHERE id = $1`,
      [peer.id],
    );
    await recordPullError(
      db,
      peer.id,
      'source peer: HTTP 500 <img src=x onerror=alert(2)>',
      new Date(),
    );
    process.env.PEER_KEY = 'sk-live-never-shown';
    try {
      const anonymous = await get();
      expect(anonymous.statusCode).toBe(303);
      expect(anonymous.headers.location).toBe('/login?next=%2Fadmin%2Fsources');
      const refused = await get(user);
      expect(refused.statusCode).toBe(403);
      expect(refused.headers['content-type']).toMatch(/^text\/html/);
      expect(refused.body).toContain('The sources page is for administrators only.');
      expect(refused.body).not.toContain('peer.example');

      const shown = await get(admin);
      expect(shown.statusCode).toBe(200);
      expect(shown.headers['cache-control']).toBe('no-store');
      const body = shown.body;
      expect(body).not.toContain('<script>alert(1)');
      expect(body).toContain('https://peer.example/&lt;script&gt;alert(1)&lt;/script&gt;');
      expect(body).not.toContain('<img src=x');
      expect(body).toContain('HTTP 500 &lt;img src=x onerror=alert(2)&gt;');
      expect(body).not.toContain('sk-live-never-shown');
      expect(body).toContain('<code>$PEER_KEY</code>');
      expect(body).toContain('*/30 * * * *');
      expect(body).toMatch(/<code>rr<\/code>[\s\S]*railre/);
      expect(body).toContain('2 h 5 min');
      expect(body).toContain('120 taken, 3 refused; 17 requests, 4 × 429, 1 failed pull(s)');
      expect(body).toContain('1 request(s)/s, trust 2');
    } finally {
      delete process.env.PEER_KEY;
    }
  });
});
