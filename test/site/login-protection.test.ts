import { describe, expect, it } from 'vitest';
import { createAppPassword } from '../../src/domain/content/app-passwords.js';
import { createUser } from '../../src/domain/accounts/users.js';
import { useSite } from './site-fixture.js';

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const scrypt = { N: 1024, r: 8, p: 1 };

/** /wp-login.php and application-password Basic auth. */
describe("the site's sign-in", () => {
  const site = useSite();

  async function loginForm() {
    const res = await site.app.inject({ url: '/wp-login.php' });
    const csrf = res.cookies.find((c) => c.name === 'csrf')!.value;
    const token = /name="_csrf" value="([^"]+)"/.exec(res.body)![1]!;
    return { csrf, token };
  }

  const post = (fields: Record<string, string>, cookies: Record<string, string>, headers = {}) =>
    site.app.inject({
      method: 'POST',
      url: '/wp-login.php',
      headers: { ...FORM, ...headers },
      cookies,
      payload: new URLSearchParams(fields).toString(),
    });

  it('login CSRF: a post without the form token, or with a planted cookie and field, is refused', async () => {
    await createUser(
      site.db,
      { username: 'lc_user', password: 'lc-user-long-passphrase' },
      { scrypt },
    );
    const fields = { log: 'lc_user', pwd: 'lc-user-long-passphrase', redirect_to: '/' };
    const bare = await post(fields, {});
    expect(bare.statusCode).toBe(403);
    expect(bare.cookies.find((c) => c.name === 'token')).toBeUndefined();
    const planted = await post({ ...fields, _csrf: 'D'.repeat(32) }, { csrf: 'D'.repeat(32) });
    expect(planted.statusCode).toBe(403);
    // The honest form works.
    const { csrf, token } = await loginForm();
    const honest = await post({ ...fields, _csrf: token }, { csrf });
    expect(honest.statusCode).toBe(303);
    expect(honest.cookies.find((c) => c.name === 'token')?.value).toMatch(/^webapp_/);
  });

  it('login CSRF: a cross-site Origin is refused even with a valid token', async () => {
    const { csrf, token } = await loginForm();
    const fields = { log: 'nobody', pwd: 'x', _csrf: token };
    for (const headers of [
      { origin: 'https://attacker.example' },
      { origin: 'http://site.test:8080' },
      { 'sec-fetch-site': 'cross-site' },
    ]) {
      expect((await post(fields, { csrf }, headers)).statusCode, JSON.stringify(headers)).toBe(403);
    }
    expect((await post(fields, { csrf }, { origin: 'http://site.test' })).statusCode).toBe(401);
  });

  it('/wp-login.php sign-ins are limited atomically: 40 concurrent posts, at most the free number tried', async () => {
    await createUser(
      site.db,
      { username: 'wl_race', password: 'wl-race-long-passphrase' },
      { scrypt },
    );
    const { csrf, token } = await loginForm();
    // Every password of the burst is wrong: a right one would reset the account's count when it
    // settles (the rule: a proven password starts the pair afresh), and how many more of the
    // burst it let through would depend on when its settle landed among them.
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        site.app.inject({
          method: 'POST',
          url: '/wp-login.php',
          headers: FORM,
          cookies: { csrf },
          remoteAddress: '198.51.100.7',
          payload: new URLSearchParams({
            _csrf: token,
            log: 'wl_race',
            pwd: `wrong-${i}`,
          }).toString(),
        }),
      ),
    );
    const statuses = results.map((r) => r.statusCode);
    const evaluated = statuses.filter((s) => s === 401).length;
    expect(evaluated).toBeGreaterThan(0);
    expect(evaluated).toBeLessThanOrEqual(10);
    expect(statuses.filter((s) => s === 429).length).toBe(40 - evaluated);
    expect(results.find((r) => r.statusCode === 429)!.headers['retry-after']).toBeDefined();
  });

  it('application-password Basic auth is limited too: 40 concurrent wrong passwords, at most the free number tried, then 429', async () => {
    const user = await createUser(
      site.db,
      { username: 'ap_race', password: 'ap-race-long-passphrase' },
      { scrypt },
    );
    await createAppPassword(site.db, { userId: Number(user.userId), name: 'real' });
    const basic = (password: string) =>
      `Basic ${Buffer.from(`ap_race:${password}`).toString('base64')}`;
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        site.app.inject({
          url: '/wp-json/wp/v2/users/me',
          headers: { authorization: basic(`wrong app password ${i}`) },
          remoteAddress: '198.51.100.8',
        }),
      ),
    );
    const statuses = results.map((r) => r.statusCode);
    const evaluated = statuses.filter((s) => s === 401).length;
    expect(evaluated).toBeLessThanOrEqual(10);
    expect(statuses.filter((s) => s === 429).length).toBe(40 - evaluated);
    const refused = results.find((r) => r.statusCode === 429)!;
    expect(refused.json().code).toBe('rest_too_many_attempts');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  });
});
