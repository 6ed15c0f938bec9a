import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAppPassword } from '../../src/domain/content/app-passwords.js';
import { setSiteRole, type SiteRole } from '../../src/domain/content/site-roles.js';
import { loadConfig } from '../../src/shared/config/config.js';
import type { Db } from '../../src/shared/db/db.js';
import { createPostgresDb } from '../../src/shared/db/postgres-db.js';
import { createLogger } from '../../src/shared/log/logger.js';
import { buildSiteApp, type SiteApp } from '../../src/http/site/app.js';
import { useTestDatabase } from '../helpers/test-db.js';

const SITE = 'http://site.test';

describe('site response cache (anonymous reads)', () => {
  const database = useTestDatabase();
  let now = Date.now();
  const clock = () => now;
  let app1: SiteApp;
  let app2: SiteApp;
  let db2: Db;
  let admin: string;

  async function account(username: string, role: SiteRole): Promise<string> {
    const db = database.current.db;
    const r = await db.query<{ id: string }>(
      `INSERT INTO users (username, password_hash) VALUES ($1, 'not-a-hash') RETURNING id`,
      [username],
    );
    const id = Number(r.rows[0]!.id);
    await setSiteRole(db, id, role);
    const { password } = await createAppPassword(db, { userId: id, name: 'tests' });
    return `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;
  }

  async function call(
    app: SiteApp,
    method: string,
    url: string,
    o: { auth?: string; body?: object } = {},
  ) {
    const res = await app.inject({
      method: method as 'GET',
      url,
      headers: o.auth ? { authorization: o.auth } : {},
      ...(o.body ? { payload: o.body } : {}),
    });
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read any field of a JSON answer
    let body: any = res.body;
    try {
      body = JSON.parse(res.body);
    } catch {
      /* HEAD or empty */
    }
    return { status: res.statusCode, body, headers: res.headers, raw: res.body };
  }

  const kept = (app: SiteApp) => app.site.responses.stats().responses;

  async function publish(title: string, extra: Record<string, unknown> = {}) {
    const r = await call(app1, 'POST', '/wp-json/wp/v2/posts', {
      auth: admin,
      body: { title, content: `<p>${title}</p>`, status: 'publish', ...extra },
    });
    expect(r.status).toBe(201);
    return r.body as { id: number };
  }

  beforeAll(async () => {
    const config = loadConfig({ LOG_LEVEL: 'silent', SITE_SEED_DOCS: 'false' });
    const logger = createLogger('silent');
    db2 = createPostgresDb({ connectionString: database.current.url, max: 2 });
    app1 = await buildSiteApp({ db: database.current.db, config, logger, clock, siteUrl: SITE });
    app2 = await buildSiteApp({ db: db2, config, logger, clock, siteUrl: SITE });
    admin = await account('cacheadmin', 'administrator');
  });
  afterAll(async () => {
    await app1?.close();
    await app2?.close();
    await db2?.close();
  });

  it('serves a kept list and single post, replaced right after an update, insert and delete', async () => {
    const a = await publish('first');
    const list1 = await call(app1, 'GET', '/wp-json/wp/v2/posts?per_page=100');
    expect(list1.body.map((p: { id: number }) => p.id)).toEqual([a.id]);
    const before = kept(app1);
    const list2 = await call(app1, 'GET', '/wp-json/wp/v2/posts?per_page=100');
    expect(list2.raw).toBe(list1.raw);
    expect(list2.headers['x-wp-total']).toBe('1');
    expect(list2.headers['x-wp-totalpages']).toBe('1');
    expect(kept(app1)).toBe(before);
    const single = await call(app1, 'GET', `/wp-json/wp/v2/posts/${a.id}?_embed`);
    expect(single.body.title.rendered).toBe('first');
    expect((await call(app1, 'GET', `/wp-json/wp/v2/posts/${a.id}?_embed`)).raw).toBe(single.raw);

    await call(app1, 'POST', `/wp-json/wp/v2/posts/${a.id}`, {
      auth: admin,
      body: { title: 'first, edited' },
    });
    expect(
      (await call(app1, 'GET', `/wp-json/wp/v2/posts/${a.id}?_embed`)).body.title.rendered,
    ).toBe('first, edited');
    const b = await publish('second');
    const list3 = await call(app1, 'GET', '/wp-json/wp/v2/posts?per_page=100');
    expect(list3.body.map((p: { id: number }) => p.id).sort()).toEqual([a.id, b.id].sort());
    expect(list3.headers['x-wp-total']).toBe('2');
    const del = await call(app1, 'DELETE', `/wp-json/wp/v2/posts/${b.id}?force=true`, {
      auth: admin,
    });
    expect(del.status).toBe(200);
    const list4 = await call(app1, 'GET', '/wp-json/wp/v2/posts?per_page=100');
    expect(list4.body.map((p: { id: number }) => p.id)).toEqual([a.id]);
    expect((await call(app1, 'GET', `/wp-json/wp/v2/posts/${b.id}`)).status).toBe(404);
  });

  it('sees a change made through another app on another pool (and one made in SQL)', async () => {
    const a = await publish('across');
    const url = `/wp-json/wp/v2/posts/${a.id}?_embed`;
    expect((await call(app2, 'GET', url)).body.title.rendered).toBe('across');
    expect((await call(app2, 'GET', url)).body.title.rendered).toBe('across');
    const list = await call(app2, 'GET', '/wp-json/wp/v2/posts?per_page=100');
    await call(app1, 'POST', `/wp-json/wp/v2/posts/${a.id}`, {
      auth: admin,
      body: { title: 'across, edited' },
    });
    expect((await call(app2, 'GET', url)).body.title.rendered).toBe('across, edited');
    const list2 = await call(app2, 'GET', '/wp-json/wp/v2/posts?per_page=100');
    expect(list2.raw).not.toBe(list.raw);
    await database.current.db.query(`UPDATE site_posts SET title = 'by sql' WHERE id = $1`, [a.id]);
    expect((await call(app2, 'GET', url)).body.title.rendered).toBe('by sql');
    expect((await call(app1, 'GET', url)).body.title.rendered).toBe('by sql');
  });

  it('never shares a response across users or contexts', async () => {
    const hidden = await call(app1, 'POST', '/wp-json/wp/v2/posts', {
      auth: admin,
      body: { title: 'private one', status: 'private' },
    });
    const id = hidden.body.id as number;
    expect((await call(app1, 'GET', `/wp-json/wp/v2/posts/${id}`)).status).toBe(401);
    expect((await call(app1, 'GET', `/wp-json/wp/v2/posts/${id}`, { auth: admin })).status).toBe(
      200,
    );
    expect((await call(app1, 'GET', `/wp-json/wp/v2/posts/${id}`)).status).toBe(401);
    // An anonymous list kept, then an administrator's edit context: raw fields, not the kept list.
    const anon = await call(app1, 'GET', '/wp-json/wp/v2/posts?per_page=100');
    expect(anon.body[0].title.raw).toBeUndefined();
    const edit = await call(app1, 'GET', '/wp-json/wp/v2/posts?per_page=100&context=edit', {
      auth: admin,
    });
    expect(edit.status).toBe(200);
    expect(edit.body[0].title.raw).toBeDefined();
    const viewAsAdmin = await call(
      app1,
      'GET',
      '/wp-json/wp/v2/posts?per_page=100&status=private',
      {
        auth: admin,
      },
    );
    expect(viewAsAdmin.body.map((p: { id: number }) => p.id)).toEqual([id]);
    expect((await call(app1, 'GET', '/wp-json/wp/v2/posts?per_page=100&context=edit')).status).toBe(
      401,
    );
    expect(
      (await call(app1, 'GET', '/wp-json/wp/v2/posts?per_page=100&status=private')).status,
    ).toBe(400);
  });

  it('does not keep a password-protected post', async () => {
    const p = await publish('locked', { password: 'sesame' });
    const before = kept(app1);
    const r = await call(app1, 'GET', `/wp-json/wp/v2/posts/${p.id}`);
    expect(r.body.content.protected).toBe(true);
    expect(kept(app1)).toBe(before);
    const open = await call(app1, 'GET', `/wp-json/wp/v2/posts/${p.id}?password=sesame`);
    expect(open.body.content.rendered).toContain('locked');
    expect(kept(app1)).toBe(before);
    // A list showing it is not kept either.
    await call(app1, 'GET', '/wp-json/wp/v2/posts?per_page=100');
    expect(kept(app1)).toBe(before);
    await call(app1, 'DELETE', `/wp-json/wp/v2/posts/${p.id}?force=true`, { auth: admin });
  });

  it('shows a scheduled post at its time', async () => {
    const at = new Date(now + 3600_000);
    const r = await call(app1, 'POST', '/wp-json/wp/v2/posts', {
      auth: admin,
      body: { title: 'scheduled', status: 'publish', date_gmt: at.toISOString().slice(0, 19) },
    });
    expect(r.body.status).toBe('future');
    const ids = async (app: SiteApp) =>
      (await call(app, 'GET', '/wp-json/wp/v2/posts?per_page=50')).body.map(
        (p: { id: number }) => p.id,
      );
    const before = kept(app2);
    expect(await ids(app1)).not.toContain(r.body.id);
    expect(await ids(app2)).not.toContain(r.body.id);
    expect(kept(app2)).toBe(before + 1);
    expect(await ids(app1)).not.toContain(r.body.id);
    expect((await call(app2, 'GET', `/wp-json/wp/v2/posts/${r.body.id}`)).status).toBe(401);
    now = at.getTime() + 1;
    expect(await ids(app2)).toContain(r.body.id);
    expect(await ids(app1)).toContain(r.body.id);
    const single = await call(app1, 'GET', `/wp-json/wp/v2/posts/${r.body.id}`);
    expect(single.body.status).toBe('publish');
  });

  it('answers a session cookie without a nonce (anonymous in WordPress) from the kept response', async () => {
    const a = await publish('cookie reader');
    const url = `/wp-json/wp/v2/posts/${a.id}`;
    const anon = await call(app1, 'GET', url);
    const size = kept(app1);
    const res = await app1.inject({
      method: 'GET',
      url,
      headers: { cookie: 'token=not-a-session' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe(anon.raw);
    expect(res.headers['x-wp-nonce']).toBeUndefined();
    expect(kept(app1)).toBe(size);
    // The ?rest_route= form is kept on its own (a list's Link headers repeat rest_route), with
    // the same body.
    const viaRestRoute = await call(app1, 'GET', `/?rest_route=/wp/v2/posts/${a.id}`);
    expect(viaRestRoute.raw).toBe(anon.raw);
    expect(kept(app1)).toBe(size + 1);
  });

  it('answers HEAD with the kept headers and no body', async () => {
    const get = await call(app1, 'GET', '/wp-json/wp/v2/posts?per_page=2');
    for (let i = 0; i < 2; i++) {
      const head = await call(app1, 'HEAD', '/wp-json/wp/v2/posts?per_page=2');
      expect(head.status).toBe(200);
      expect(head.raw).toBe('');
      expect(head.headers['x-wp-total']).toBe(get.headers['x-wp-total']);
      expect(head.headers.link).toEqual(get.headers.link);
      expect(head.headers['content-type']).toBe('application/json; charset=UTF-8');
    }
  });
});
