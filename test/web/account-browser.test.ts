import { beforeAll, describe, expect, it } from 'vitest';
import { issueCredential } from '../../src/domain/accounts/credentials.js';
import { scopesOfRole } from '../../src/domain/accounts/scopes.js';
import { shanghaiClock } from '../api/helpers/fixture-week.js';
import { CALLBACK, makeClient, makeUser } from '../oauth/oauth-fixtures.js';
import {
  axeViolations,
  PHONE_LOOKS,
  scrollsSideways,
  useWebBrowserTest,
  WEB_TODAY,
} from './helpers/web-harness.js';

const web = useWebBrowserTest({ load: false });
let session: string;
let consentUrl: string;

beforeAll(async () => {
  const { db } = web.t.current;
  const user = await makeUser(db);
  session = (
    await issueCredential(db, {
      userId: user.userId,
      issuer: 'webapp',
      scopes: [...scopesOfRole('user')],
      dailyTokenLimit: 1000,
      // Live from the app's day (the fixture week's) until after the machine's.
      activeFrom: new Date(shanghaiClock(WEB_TODAY)()),
      expiresAt: new Date(Math.max(Date.now(), shanghaiClock(WEB_TODAY)()) + 86_400_000),
    })
  ).secret;
  // A hostile name, printed in the consent page's title and heading.
  const client = await makeClient(db, user, { name: '<script>alert(1)</script> Viewer' });
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: client.clientId,
    redirect_uri: CALLBACK,
    scope: 'openid api.auth.me.read api.records.daily.read',
    state: 'st',
    code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSDtw-cM',
    code_challenge_method: 'S256',
  });
  consentUrl = `/oauth/authorize?${query}`;
});

const SIGNED_OUT = ['/login', '/register'];
const SIGNED_IN = () => ['/account', '/account?tab=development', consentUrl];

describe('the sign-in, register, account and consent pages in a phone browser', () => {
  for (const { colorScheme, locale } of PHONE_LOOKS) {
    it(`fit 360 px and have no axe violation (${colorScheme}, ${locale})`, async () => {
      await web.onPhone({ colorScheme, locale }, async (page, context) => {
        const { server } = web;
        const check = async (url: string) => {
          const res = await web.checkPage(page, url, locale);
          expect(res?.status(), url).toBe(200);
          // The page itself, not the sign-in page it would send a signed-out browser to.
          expect(new URL(page.url()).pathname, url).toBe(url.split('?')[0]);
          expect(res?.headers()['cache-control'], url).toBe('no-store');
          expect(await page.locator('h1').count(), url).toBe(1);
        };
        for (const url of SIGNED_OUT) await check(url);
        await context.addCookies([{ name: 'token', value: session, url: server.base }]);
        for (const url of SIGNED_IN()) await check(url);
        expect(await page.locator('h1 em').innerText()).toBe('<script>alert(1)</script> Viewer');
      });
    }, 120_000);
  }

  it('creates a key and shows it once, with JavaScript off (no copy button) and on (copies)', async () => {
    const { server } = web;
    for (const javaScript of [false, true]) {
      await web.onPhone({ javaScript, locale: 'en-US' }, async (page, context) => {
        await context.addCookies([{ name: 'token', value: session, url: server.base }]);
        await page.goto(`${server.base}/account?tab=development`);
        await page.fill('#key-name', `key with script ${javaScript ? 'on' : 'off'}`);
        await page.click('#create-key button[type=submit]');
        expect(await page.inputValue('#new-key')).toMatch(/^api_/);
        expect(await scrollsSideways(page)).toBe(false);
        const copy = page.locator('#copy-new-key');
        expect(await copy.isVisible()).toBe(javaScript);
        if (javaScript) {
          await context.grantPermissions(['clipboard-read', 'clipboard-write'], {
            origin: server.base,
          });
          await copy.click();
          await expect.poll(() => copy.innerText()).toBe('Copied');
          expect(await axeViolations(page)).toEqual([]);
        }
      });
    }
  }, 120_000);
});
