import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { refreshReferenceModelsJob } from '../../jobs/index.js';
import { issueCredential } from '../../src/domain/accounts/credentials.js';
import { scopesOfRole } from '../../src/domain/accounts/scopes.js';
import { createUser } from '../../src/domain/accounts/users.js';
import { buildApp } from '../../src/http/api/app.js';
import { useChromium } from '../helpers/browser.js';
import { useQueueEnv } from '../worker/support/queue-env.js';
import { waitFor } from '../worker/support/wait-for.js';

const env = useQueueEnv();
const chromium = useChromium();
const FAST_SCRYPT = { N: 1024, r: 8, p: 1 };

/** A web session (the `token` cookie's secret) of a new user with this role. */
async function sessionOf(username: string, role: 'user' | 'admin'): Promise<string> {
  const { db } = env.database;
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

describe('the queue dashboard at /admin/queues', () => {
  it('is refused to anonymous callers (a page: to /login; the API: 401) and non-administrators (403, a page for a page), and read-write for administrators, in Chromium too', async () => {
    const queues = env.queues();
    env.workers(env.ctx(), queues);
    // A job failed for good, for the dashboard to show, retry and remove.
    const bad = await queues
      .queue(refreshReferenceModelsJob.name)
      .add(refreshReferenceModelsJob.name, { serviceDay: 'last week' });
    const failed = async () =>
      (await queues.queue(refreshReferenceModelsJob.name).getJobState(bad.id!)) === 'failed';
    await waitFor('the job to fail', failed);

    const logger = pino({ level: 'silent' });
    const app = await buildApp({ db: env.database.db, config: env.config(), logger });
    env.defer(() => app.close());
    await app.listen({ host: '127.0.0.1', port: 0 });
    const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    const admin = await sessionOf('ops-admin', 'admin');
    const user = await sessionOf('ops-user', 'user');
    const as = (secret?: string) => (secret ? { cookie: `token=${secret}` } : {});

    // Pages, assets and Bull Board's own API are all behind the check: the API and assets
    // answer 401/403 in JSON, a page sends a signed-out browser to /login and back, and shows
    // a signed-in non-administrator a page saying why (as the other admin pages do).
    for (const url of ['/admin/queues/api/queues', '/admin/queues/static/x.js']) {
      expect((await app.inject({ url, headers: as() })).statusCode, url).toBe(401);
      expect((await app.inject({ url, headers: as(user) })).statusCode, url).toBe(403);
    }
    for (const url of ['/admin/queues', `/admin/queues/queue/${refreshReferenceModelsJob.name}`]) {
      const signedOut = await app.inject({ url, headers: as() });
      expect(signedOut.statusCode, url).toBe(303);
      expect(signedOut.headers.location).toBe(`/login?next=${encodeURIComponent(url)}`);
      // In English (the pages' default is Chinese), as the assertion reads it.
      const forbidden = await app.inject({
        url,
        headers: { ...as(user), 'accept-language': 'en' },
      });
      expect(forbidden.statusCode, url).toBe(403);
      expect(forbidden.headers['content-type']).toMatch(/^text\/html/);
      expect(forbidden.body).toContain('for administrators only');
    }
    // Offline-safe: the page links no external font (Bull Board's own links Google Fonts).
    const board = await app.inject({ url: '/admin/queues', headers: as(admin) });
    expect(board.statusCode).toBe(200);
    expect(board.body).toContain('<div id="root">');
    expect(board.body).not.toMatch(/fonts\.(googleapis|gstatic)\.com/);
    const retryUrl = `/admin/queues/api/queues/${refreshReferenceModelsJob.name}/${bad.id}/retry`;
    expect((await app.inject({ method: 'PUT', url: retryUrl, headers: as(user) })).statusCode).toBe(
      403,
    );
    expect(await failed()).toBe(true);

    const listed = await app.inject({ url: '/admin/queues/api/queues', headers: as(admin) });
    expect(listed.statusCode).toBe(200);
    const names = (listed.json() as { queues: { name: string }[] }).queues.map((q) => q.name);
    expect(names).toContain('build-daily-records');
    expect(names).toContain('refresh-reference-models');

    const context = await (
      await chromium.browser()
    ).newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    const offsite: string[] = [];
    page.on('request', (r) => {
      if (!r.url().startsWith(base) && !r.url().startsWith('data:')) offsite.push(r.url());
    });
    const refused = await page.goto(`${base}/admin/queues`);
    expect(new URL(page.url()).pathname).toBe('/login');
    expect(refused?.status()).toBe(200);
    await context.addCookies([{ name: 'token', value: user, url: base }]);
    expect((await page.goto(`${base}/admin/queues`))?.status()).toBe(403);
    expect(await page.textContent('body')).toContain('for administrators only');

    await context.clearCookies();
    await context.addCookies([{ name: 'token', value: admin, url: base }]);
    const shown = await page.goto(
      `${base}/admin/queues/queue/${refreshReferenceModelsJob.name}?status=failed`,
    );
    expect(shown?.status()).toBe(200);
    await page.getByText('invalid payload', { exact: false }).first().waitFor();
    const screenshot = path.join(os.tmpdir(), 'emutrack-queue-dashboard.png');
    await page.screenshot({ path: screenshot, fullPage: true });
    process.stdout.write(`\n[ops] queue dashboard screenshot: ${screenshot}\n`);
    expect(await page.textContent('body')).toContain('refresh-reference-models');
    expect(offsite).toEqual([]);

    // Read-write: an administrator retries the failed job (it fails again), then removes it.
    const retried = await app.inject({ method: 'PUT', url: retryUrl, headers: as(admin) });
    expect(retried.statusCode).toBe(204);
    await waitFor('the retried job to fail again', async () => {
      const job = await queues.getJob(refreshReferenceModelsJob.name, bad.id!);
      return (await job?.getState()) === 'failed' && job!.attemptsStarted >= 2;
    });
    const removed = await app.inject({
      method: 'PUT',
      url: `/admin/queues/api/queues/${refreshReferenceModelsJob.name}/${bad.id}/clean`,
      headers: as(admin),
    });
    expect(removed.statusCode).toBe(204);
    expect(await queues.getJob(refreshReferenceModelsJob.name, bad.id!)).toBeUndefined();
  }, 60_000);
});
