import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiApp } from '../../src/http/api/app.js';
import { formBrowser } from '../helpers/form-browser.js';
import { useTestDatabase } from '../helpers/test-db.js';
import { FAST_SCRYPT_ENV, makeUser } from './helpers/accounts.js';
import { makeApp, testConfig } from './helpers/api-harness.js';

describe('the Webhooks panel of /account', () => {
  const t = useTestDatabase();
  let app: ApiApp;

  beforeAll(async () => {
    app = await makeApp(t.current.db, { config: testConfig(FAST_SCRYPT_ENV) });
  });
  afterAll(async () => {
    await app?.close();
  });

  it('registers an endpoint, shows its secret once, shows why it was disabled, rotates and deletes it', async () => {
    const user = await makeUser(t.current.db, 'panel');
    const b = formBrowser(app);
    await b.signIn(user.username, user.password);
    const page = await b.get('/account?tab=development');
    expect(page.body).toContain('Webhooks');
    expect(page.body).toContain('You have no webhooks.');
    const created = await b.post('/account/webhooks', {
      _csrf: b.csrfOf(page.body),
      url: 'https://hooks.example.com/in?a=1&b=<2>',
      events: ['day.rebuilt', 'export.ready'],
    });
    expect(created.statusCode).toBe(200);
    expect(created.headers['cache-control']).toBe('no-store');
    const secret = /value="(whsec_[^"]+)"/.exec(created.body)![1]!;
    // What the user typed comes back escaped.
    expect(created.body).toContain('https://hooks.example.com/in?a=1&amp;b=%3C2%3E');

    await t.current.db.query(
      `UPDATE webhook_endpoints SET disabled_at = now(),
              disabled_reason = 'every delivery has failed since then; last: <b>503</b>'`,
    );
    const listed = await b.get('/account?tab=development');
    expect(listed.body).not.toContain(secret);
    expect(listed.body).toContain('Disabled');
    expect(listed.body).toContain('last: &lt;b&gt;503&lt;/b&gt;');
    const id = /action="\/account\/webhooks\/(whe_[^/]+)\/rotate-secret"/.exec(listed.body)![1]!;

    const rotated = await b.post(`/account/webhooks/${id}/rotate-secret`, {
      _csrf: b.csrfOf(listed.body),
    });
    expect(rotated.statusCode).toBe(200);
    const fresh = /value="(whsec_[^"]+)"/.exec(rotated.body)![1]!;
    expect(fresh).not.toBe(secret);
    const enabled = await b.get('/account?tab=development');
    expect(enabled.body).not.toContain('Disabled');

    const deleted = await b.post(`/account/webhooks/${id}/delete`, {
      _csrf: b.csrfOf(enabled.body),
    });
    expect(deleted.statusCode).toBe(303);
    expect((await b.get('/account?tab=development')).body).toContain('You have no webhooks.');
  });

  it('comes back with the reason when the address is refused, and refuses a post without the CSRF token', async () => {
    const user = await makeUser(t.current.db, 'panel');
    const b = formBrowser(app);
    await b.signIn(user.username, user.password);
    const page = await b.get('/account?tab=development');
    const refused = await b.post('/account/webhooks', {
      _csrf: b.csrfOf(page.body),
      url: 'https://192.168.0.10/in',
      events: 'day.rebuilt',
    });
    expect(refused.statusCode).toBe(303);
    const back = await b.get(refused.headers.location as string);
    expect(back.body).toContain('private or reserved address');
    const forged = await b.post('/account/webhooks', {
      url: 'https://hooks.example.com/in',
      events: 'day.rebuilt',
    });
    expect(forged.statusCode).toBe(403);
    const anonymous = formBrowser(app);
    const out = await anonymous.post('/account/webhooks', { url: 'x', events: 'day.rebuilt' });
    expect(out.statusCode).toBe(303);
    expect(out.headers.location).toMatch(/^\/login/);
  });
});
