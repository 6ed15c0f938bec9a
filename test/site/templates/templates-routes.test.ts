/* eslint-disable @typescript-eslint/no-explicit-any -- response bodies are JSON checked field by field */
import { beforeAll, describe, expect, it } from 'vitest';
import { createTemplatesModule } from '../../../src/http/site/templates/templates-module.js';
import { useMediaSite, type SiteAccount } from '../media/media-site.js';

const site = useMediaSite({ extraModules: () => [createTemplatesModule()] });
let admin: SiteAccount;
let editor: SiteAccount;

const call = (method: string, url: string, o: { auth?: SiteAccount; payload?: object } = {}) =>
  site.call(method, url, { auth: o.auth, body: o.payload });

beforeAll(async () => {
  admin = await site.account('admin1', 'administrator');
  editor = await site.account('editor1', 'editor');
});

const T = '/wp-json/wp/v2/templates';

describe('templates', () => {
  it('lists the theme files as source theme; needs edit_theme_options', async () => {
    const res = await call('GET', `${T}?context=edit`, { auth: admin });
    expect(res.status).toBe(200);
    const slugs = res.body.map((t: any) => t.slug);
    expect(slugs).toEqual(expect.arrayContaining(['404', 'index', 'page', 'single']));
    // No home.html: it was index.html again; the front page falls back to index by the hierarchy.
    expect(slugs).not.toContain('home');
    const single = res.body.find((t: any) => t.slug === 'single');
    expect(single).toMatchObject({
      id: 'emutrack-docs//single',
      theme: 'emutrack-docs',
      type: 'wp_template',
      source: 'theme',
      origin: null,
      wp_id: null,
      has_theme_file: true,
      is_custom: false,
      title: { raw: 'Single Posts' },
    });
    expect(single.content.raw).toContain('<!-- wp:post-content /-->');
    const denied = await call('GET', T, { auth: editor });
    expect([denied.status, denied.body.code]).toEqual([403, 'rest_cannot_manage_templates']);
    const anon = await call('GET', T);
    expect(anon.status).toBe(401);
  });

  it('lookup follows the fallback chain: single-post-hello -> single-post -> single', async () => {
    const before = await call('GET', `${T}/lookup?slug=single-post-hello`, { auth: admin });
    expect(before.status).toBe(200);
    expect(before.body).toMatchObject({ slug: 'single', source: 'theme' });
    const custom = await call('GET', `${T}/lookup?slug=my-landing&is_custom=true`, { auth: admin });
    expect(custom.body.slug).toBe('page');
    const archive = await call('GET', `${T}/lookup?slug=category-news`, { auth: admin });
    expect(archive.body.slug).toBe('index');
    const created = await call('POST', T, {
      auth: admin,
      payload: {
        slug: 'single-post',
        title: 'Posts',
        content: '<!-- wp:post-title /--><!-- wp:post-content /-->',
      },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      id: 'emutrack-docs//single-post',
      source: 'custom',
      has_theme_file: false,
      // Made through the API (not a site-editor suggestion): custom, as WordPress marks it.
      is_custom: true,
    });
    const after = await call('GET', `${T}/lookup?slug=single-post-hello`, { auth: admin });
    expect(after.body).toMatchObject({
      slug: 'single-post',
      source: 'custom',
      wp_id: created.body.wp_id,
    });
    const missing = await call('GET', `${T}/lookup`, { auth: admin });
    expect([missing.status, missing.body.code]).toEqual([400, 'rest_missing_callback_param']);
  });

  it('editing a theme template makes it a custom item with revisions; force delete brings the file back', async () => {
    const id = 'emutrack-docs//page';
    const edited = await call('POST', `${T}/${id}`, {
      auth: admin,
      payload: {
        content:
          '<!-- wp:post-title {"level":1} /--><!-- wp:paragraph --><p>EDITED PAGE TEMPLATE</p><!-- /wp:paragraph --><!-- wp:post-content /-->',
      },
    });
    expect(edited.status).toBe(200);
    expect(edited.body).toMatchObject({
      id,
      source: 'custom',
      origin: 'theme',
      has_theme_file: true,
      original_source: 'theme',
    });
    expect(edited.body.wp_id).toBeGreaterThan(0);
    const again = await call('PATCH', `${T}/${id}`, {
      auth: admin,
      payload: { title: 'Pages (edited)' },
    });
    expect(again.body.title.raw).toBe('Pages (edited)');
    const revisions = await call('GET', `${T}/${id}/revisions`, { auth: admin });
    expect(revisions.status).toBe(200);
    expect(revisions.body.length).toBeGreaterThanOrEqual(1);
    const revision = await call('GET', `${T}/${id}/revisions/${revisions.body[0].id}`, {
      auth: admin,
    });
    expect(revision.body.parent).toBe(edited.body.wp_id);
    const noForce = await call('DELETE', `${T}/${id}/revisions/${revisions.body[0].id}`, {
      auth: admin,
    });
    expect([noForce.status, noForce.body.code]).toEqual([501, 'rest_trash_not_supported']);

    const autosave = await call('POST', `${T}/${id}/autosaves`, {
      auth: admin,
      payload: { content: 'autosaved' },
    });
    expect(autosave.status).toBe(200);
    const autosaves = await call('GET', `${T}/${id}/autosaves`, { auth: admin });
    expect(autosaves.body.map((a: any) => a.content.raw)).toEqual(['autosaved']);

    const filtered = await call('GET', `${T}?wp_id=${edited.body.wp_id}`, { auth: admin });
    expect(filtered.body.map((t: any) => t.id)).toEqual([id]);

    const trashed = await call('DELETE', `${T}/${id}`, { auth: admin });
    expect(trashed.body.status).toBe('trash');
    const twice = await call('DELETE', `${T}/${id}`, { auth: admin });
    expect([twice.status, twice.body.code]).toEqual([410, 'rest_template_already_trashed']);
    const forced = await call('DELETE', `${T}/${id}?force=true`, { auth: admin });
    expect(forced.body).toMatchObject({ deleted: true });
    const back = await call('GET', `${T}/${id}`, { auth: admin });
    expect(back.body).toMatchObject({ source: 'theme', wp_id: null });
    const themeOnly = await call('DELETE', `${T}/emutrack-docs//index?force=true`, { auth: admin });
    expect([themeOnly.status, themeOnly.body.code]).toEqual([400, 'rest_invalid_template']);
    const unknown = await call('GET', `${T}/emutrack-docs//nope`, { auth: admin });
    expect([unknown.status, unknown.body.code]).toEqual([404, 'rest_template_not_found']);
  });

  it('the site pages render through the templates (an edited template shows)', async () => {
    const page = await call('POST', '/wp-json/wp/v2/pages', {
      auth: admin,
      payload: {
        title: 'About',
        slug: 'about',
        content: '<p>About the site.</p>',
        status: 'publish',
      },
    });
    expect(page.status).toBe(201);
    const plain = await call('GET', '/about/');
    expect(plain.status).toBe(200);
    expect(plain.body).toContain('template-page');
    // An English page under the Chinese chrome carries lang="en" on its title and text.
    expect(plain.body).toMatch(/<h1 class="wp-block-post-title"( lang="en")?>About<\/h1>/);
    expect(plain.body).toContain('About the site.');
    await call('POST', `${T}/emutrack-docs//page`, {
      auth: admin,
      payload: {
        content:
          '<!-- wp:paragraph --><p>CUSTOM LAYOUT</p><!-- /wp:paragraph --><!-- wp:post-content /-->',
      },
    });
    const custom = await call('GET', '/about/');
    expect(custom.body).toContain('CUSTOM LAYOUT');
    expect(custom.body).toContain('About the site.');
    const pageSpecific = await call('POST', T, {
      auth: admin,
      payload: {
        slug: 'page-about',
        content: '<!-- wp:paragraph --><p>ONLY FOR ABOUT</p><!-- /wp:paragraph -->',
      },
    });
    expect(pageSpecific.status).toBe(201);
    expect((await call('GET', '/about/')).body).toContain('ONLY FOR ABOUT');
    const home = await call('GET', '/');
    expect(home.body).toContain('template-index');
    const notFound = await call('GET', '/no-such-page/');
    expect(notFound.status).toBe(404);
    expect(notFound.body).toContain('template-404');
  });

  // Which template routes WordPress lets through /batch/v1: WordPress
  // 6.1's templates controller lets none through (no allow_batch; the golden OPTIONS).
  it('is refused by /batch/v1 as WordPress refuses it (rest_batch_not_allowed), nothing created', async () => {
    const res = await call('POST', '/wp-json/batch/v1', {
      auth: admin,
      payload: {
        requests: [
          {
            method: 'POST',
            path: '/wp/v2/templates',
            body: { slug: 'batched', title: 'Batched', content: 'x' },
          },
        ],
      },
    });
    expect(res.status).toBe(207);
    expect(res.body.responses.map((r: any) => [r.status, r.body.code])).toEqual([
      [400, 'rest_batch_not_allowed'],
    ]);
    const missing = await call('GET', '/wp-json/wp/v2/templates/emutrack-docs//batched', {
      auth: admin,
    });
    expect(missing.status).toBe(404);
  });
});
