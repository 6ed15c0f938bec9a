import { mkdirSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiApp } from '../../src/http/api/app.js';
import { useChromium } from '../helpers/browser.js';
import { useTestDatabase } from '../helpers/test-db.js';
import { FAST_SCRYPT_ENV } from '../api/helpers/accounts.js';
import { makeApp, testConfig } from '../api/helpers/api-harness.js';

/** Screenshots of the flow, for people to look at (not compared). */
const SHOTS = path.join(process.env.TMPDIR ?? '/tmp', 'emutrack-account-pages');

describe('the account pages in Chromium', () => {
  const t = useTestDatabase();
  let app: ApiApp;
  let base: string;
  const chromium = useChromium();

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    app = await makeApp(t.current.db, { config: testConfig(FAST_SCRYPT_ENV) });
    await app.listen({ host: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  }, 60_000);
  afterAll(async () => {
    await app?.close();
  });

  const me = (key: string) =>
    fetch(`${base}/api/v2/auth/me`, { headers: { authorization: `Bearer ${key}` } });

  it('registers, signs in, creates a key, uses it, revokes it: the next call is 401', async () => {
    const context = await (
      await chromium.browser()
    ).newContext({ viewport: { width: 1100, height: 900 } });
    const page = await context.newPage();
    try {
      // Register (then sign out, to sign in as a returning user).
      await page.goto(`${base}/register`);
      await page.fill('#username', 'chromium_user');
      await page.fill('#password', 'a-long-password');
      await page.screenshot({ path: path.join(SHOTS, '1-register.png'), fullPage: true });
      await page.click('button[type=submit]');
      await page.waitForURL(`${base}/account`);
      await page.click('header button:has-text("Sign out")');
      await page.waitForURL(`${base}/login`);

      // A visit to the Development tab signs in first and comes back.
      await page.goto(`${base}/account?tab=development`);
      await page.waitForURL(/\/login\?next=/);
      await page.fill('#username', 'chromium_user');
      await page.fill('#password', 'a-long-password');
      await page.screenshot({ path: path.join(SHOTS, '2-login.png'), fullPage: true });
      await page.click('button[type=submit]');
      await page.waitForURL(`${base}/account?tab=development`);
      const cookies = await context.cookies();
      expect(cookies.find((c) => c.name === 'token')).toMatchObject({
        httpOnly: true,
        sameSite: 'Lax',
      });

      // Create a key: a name, two scopes, 90 days.
      await page.fill('#key-name', 'browser key');
      for (const box of await page.locator('input[name=scopes]').all()) {
        const scope = await box.getAttribute('value');
        if (scope !== 'api.auth.me.read' && scope !== 'api.records.daily.read') await box.uncheck();
      }
      await page.selectOption('#key-lifetime', '90');
      await page.click('#create-key button[type=submit]');
      const key = await page.inputValue('#new-key');
      expect(key).toMatch(/^api_[A-Za-z0-9_-]{43}$/);
      await page.screenshot({ path: path.join(SHOTS, '3-key-created.png'), fullPage: true });

      const before = await me(key);
      expect(before.status).toBe(200);
      const session = (await before.json()) as {
        data: {
          apiKey: { revokeId: string; scopes: string[]; expiresAt: number; activeFrom: number };
        };
      };
      expect(session.data.apiKey.scopes).toEqual(['api.auth.me.read', 'api.records.daily.read']);
      expect(session.data.apiKey.expiresAt - session.data.apiKey.activeFrom).toBeGreaterThanOrEqual(
        90 * 86_400 - 5,
      );

      // Revoke it from its row.
      await page.goto(`${base}/account?tab=development`);
      const row = page.locator(`tr[data-revoke-id="${session.data.apiKey.revokeId}"]`);
      await row.locator('button:has-text("Revoke")').click();
      await page.waitForURL(`${base}/account?tab=development&revoked=1`);
      await page.screenshot({ path: path.join(SHOTS, '4-key-revoked.png'), fullPage: true });
      expect(await page.locator('.notice').textContent()).toContain('revoked');

      const after = await me(key);
      expect(after.status).toBe(401);
      expect(((await after.json()) as { error: { code: string } }).error.code).toBe(
        'invalid_api_key',
      );
    } finally {
      await context.close();
    }
  }, 60_000);
});
