import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAppPassword } from '../../src/domain/content/app-passwords.js';
import { getPost } from '../../src/domain/content/posts-store.js';
import { setSiteRole } from '../../src/domain/content/site-roles.js';
import { loadConfig } from '../../src/shared/config/config.js';
import { createLogger } from '../../src/shared/log/logger.js';
import { buildSiteApp, type SiteApp } from '../../src/http/site/app.js';
import { useTestDatabase } from '../helpers/test-db.js';

describe('site: scheduled posts published by the one job', () => {
  const database = useTestDatabase();
  let now = Date.now();
  let app: SiteApp;
  let admin: string;

  beforeAll(async () => {
    const db = database.current.db;
    app = await buildSiteApp({
      db,
      config: loadConfig({ LOG_LEVEL: 'silent', SITE_SEED_DOCS: 'false' }),
      logger: createLogger('silent'),
      clock: () => now,
      siteUrl: 'http://site.test',
    });
    const r = await db.query<{ id: string }>(
      `INSERT INTO users (username, password_hash) VALUES ('scheduler', 'not-a-hash') RETURNING id`,
    );
    const id = Number(r.rows[0]!.id);
    await setSiteRole(db, id, 'administrator');
    const { password } = await createAppPassword(db, { userId: id, name: 'tests' });
    admin = `Basic ${Buffer.from(`scheduler:${password}`).toString('base64')}`;
  });
  afterAll(async () => {
    await app?.close();
  });

  it('shows a signed-in reader the post published once its time has passed, and reads write nothing before', async () => {
    const at = new Date(now + 3600_000);
    const created = await app.inject({
      method: 'POST',
      url: '/wp-json/wp/v2/posts',
      headers: { authorization: admin },
      payload: { title: 'later', status: 'publish', date_gmt: at.toISOString().slice(0, 19) },
    });
    const id = (created.json() as { id: number; status: string }).id;
    expect(created.json()).toMatchObject({ status: 'future' });
    const read = () =>
      app.inject({
        method: 'GET',
        url: `/wp-json/wp/v2/posts/${id}?context=edit`,
        headers: { authorization: admin },
      });
    expect((await read()).json()).toMatchObject({ status: 'future' });
    expect((await getPost(database.current.db, id))!.status).toBe('future');
    now = at.getTime() + 1;
    expect((await read()).json()).toMatchObject({ status: 'publish' });
    expect((await getPost(database.current.db, id))!.status).toBe('publish');
  });
});
