import { beforeAll, describe, expect, it } from 'vitest';
import { useSite } from '../site-fixture.js';
import { siteSessionSecret } from './site-session.js';

const PAGE = '/wp-admin/authorize-application.php';

/**
 * authorize-application.php never showed where the new password would be
 * sent (`success_url=https://attacker.example/steal` got it) and could be framed.
 */
describe('authorize-application.php shows where the password goes', () => {
  const site = useSite();
  let cookie: string;

  beforeAll(async () => {
    const admin = await site.account('admin', 'administrator');
    cookie = `token=${await siteSessionSecret(site.db, admin.id)}`;
  });

  const open = (query: Record<string, string>) =>
    site.app.inject({ url: `${PAGE}?${new URLSearchParams(query)}`, headers: { cookie } });

  it('password sent to a stranger: the page names the destination host, prominently, before approval', async () => {
    const res = await open({
      app_name: '看起来无害',
      success_url: 'https://attacker.example/steal?x=1',
    });
    expect(res.statusCode).toBe(200);
    expect(res.body).toMatch(
      /<p class="destination-host"><strong>attacker\.example<\/strong><\/p>/,
    );
    // The whole address as WordPress shows it ("You will be sent to"), the password masked.
    expect(res.body).toContain(
      'https://attacker.example/steal?x=1&amp;site_url=http%3A%2F%2Fsite.test&amp;user_login=admin&amp;password=%5B------%5D',
    );
    expect(res.headers['x-frame-options']).toBe('DENY');
  });

  it('without success_url the page says the password is shown here and sent nowhere', async () => {
    const res = await open({ app_name: 'cli' });
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('新密码将只显示在本页，不会发送到任何地址。');
  });

  it.each([
    ['http://attacker.example/steal', 400],
    ['javascript:alert(1)', 400],
    ['data:text/html,x', 400],
    ['//attacker.example/steal', 400],
    ['http://127.0.0.1:8080/cb', 200],
    ['http://localhost/cb', 200],
    ['https://app.example/cb', 200],
  ])('success_url %s (https only, http on loopback): %i', async (successUrl, status) => {
    const res = await open({ app_name: 'x', success_url: successUrl });
    expect(res.statusCode).toBe(status);
    if (status === 400) expect(res.body).toContain('success_url 必须使用 https');
  });

  it('an insecure success_url is refused on approval too, with no password made', async () => {
    const res = await site.app.inject({
      method: 'POST',
      url: PAGE,
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({
        app_name: 'x',
        success_url: 'http://attacker.example/steal',
        approve: '1',
        _wpnonce: 'forged',
      }).toString(),
    });
    expect(res.statusCode).toBeGreaterThanOrEqual(400);
    expect(res.headers.location).toBeUndefined();
  });
});
