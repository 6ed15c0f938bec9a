import { beforeAll, describe, expect, it } from 'vitest';
import { issueCredential } from '../../../src/domain/accounts/credentials.js';
import { setUserEmail } from '../../../src/domain/accounts/users.js';
import { useSite, type SiteAccountFixture } from '../site-fixture.js';

const basic = (user: string, password: string) =>
  `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

/** Application passwords as WordPress 5.7+ takes them: e-mail as user name, introspect. */
describe('application passwords: e-mail address as user name, introspect', () => {
  const site = useSite();
  let author: SiteAccountFixture;
  let admin: SiteAccountFixture;

  beforeAll(async () => {
    author = await site.account('author', 'author');
    admin = await site.account('admin', 'administrator');
    await setUserEmail(site.db, String(author.id), 'Author@Example.test');
  });

  it('signs in with the e-mail address (any case) as user name', async () => {
    const r = await site.call('GET', '/wp-json/wp/v2/users/me', {
      headers: { authorization: basic('author@EXAMPLE.test', author.appPassword) },
    });
    expect([r.status, r.body.id]).toEqual([200, author.id]);
  });

  // compatibility.md: WordPress 6.1 answers a failed application password as an anonymous
  // request; the oracle's golden answers show the same (app-passwords category).
  it('answers a failed application password as WordPress 6.1 does: as anonymous, never signed in', async () => {
    const failures = [
      basic('nobody@example.test', author.appPassword),
      basic('nobody', author.appPassword),
      basic('author@example.test', 'abcd efgh ijkl mnop qrst uvwx'),
      'Basic !!!not-base64',
    ];
    for (const authorization of failures) {
      const me = await site.call('GET', '/wp-json/wp/v2/users/me', { headers: { authorization } });
      expect([authorization, me.status, me.body.code]).toEqual([
        authorization,
        401,
        'rest_not_logged_in',
      ]);
      const edit = await site.call('GET', '/wp-json/wp/v2/posts?context=edit', {
        headers: { authorization },
      });
      expect([edit.status, edit.body.code]).toEqual([401, 'rest_forbidden_context']);
      const create = await site.call('POST', '/wp-json/wp/v2/posts', {
        headers: { authorization },
        body: { title: 'no' },
      });
      expect([create.status, create.body.code]).toEqual([401, 'rest_cannot_create']);
      const list = await site.call('GET', '/wp-json/wp/v2/posts', { headers: { authorization } });
      expect(list.status).toBe(200);
      expect(JSON.stringify(list.body)).not.toContain('"status":"draft"');
    }
  });

  it('introspect answers the password the request authenticated with, for oneself only', async () => {
    const me = await site.call('GET', '/wp-json/wp/v2/users/me/application-passwords/introspect', {
      auth: author,
    });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ name: 'tests', last_ip: '127.0.0.1' });
    expect(me.body).not.toHaveProperty('password');
    const byId = await site.call(
      'GET',
      `/wp-json/wp/v2/users/${author.id}/application-passwords/introspect`,
      { auth: author },
    );
    expect(byId.body.uuid).toBe(me.body.uuid);
    // Not even an administrator introspects another user's.
    const other = await site.call(
      'GET',
      `/wp-json/wp/v2/users/${author.id}/application-passwords/introspect`,
      { auth: admin },
    );
    expect([other.status, other.body.code]).toEqual([
      403,
      'rest_cannot_introspect_app_password_for_non_authenticated_user',
    ]);
    const anon = await site.call('GET', '/wp-json/wp/v2/users/me/application-passwords/introspect');
    expect([anon.status, anon.body.code]).toEqual([401, 'rest_not_logged_in']);
  });

  it('a session signed in without an application password has none to introspect (404)', async () => {
    const { secret } = await issueCredential(site.db, {
      userId: String(author.id),
      issuer: 'webapp',
      scopes: [],
      dailyTokenLimit: 10,
    });
    const cookie = `token=${secret}`;
    // Raw, not through call(): a nonce of digits and an `e` would parse as a JSON number.
    const nonce = await site.app.inject({
      method: 'GET',
      url: '/wp-admin/admin-ajax.php?action=rest-nonce',
      headers: { cookie },
    });
    expect(nonce.statusCode).toBe(200);
    const r = await site.call('GET', '/wp-json/wp/v2/users/me/application-passwords/introspect', {
      headers: { cookie, 'x-wp-nonce': nonce.body },
    });
    expect([r.status, r.body.code]).toEqual([404, 'rest_no_authenticated_app_password']);
  });
});
