import { beforeAll, describe, expect, it } from 'vitest';
import type { SiteRole } from '../../../src/domain/content/site-roles.js';
import { unsafeMarkup } from '../../helpers/html-safety.js';
import { useSite, type SiteAccountFixture } from '../site-fixture.js';
import { themeFrameElement, wpApiSettingsScript } from './site-session.js';

const PAYLOAD = {
  title: 'XSS <img src=x onerror=alert(1)>',
  content: '<script>alert(document.domain)</script><p>正文</p>',
  excerpt: '<svg onload=alert(2)>摘要',
};

/**
 * who may save which HTML. Single-site WordPress: administrators and
 * editors hold unfiltered_html and save what they write; authors and contributors are filtered
 * by kses on every path that writes HTML (create, update, autosave, blocks, media).
 */
describe('HTML filtering by role (unfiltered_html)', () => {
  const site = useSite({ uploads: true });
  const accounts = {} as Record<SiteRole, SiteAccountFixture>;

  beforeAll(async () => {
    for (const role of ['administrator', 'editor', 'author', 'contributor'] as const)
      accounts[role] = await site.account(role, role);
  });

  it.each([
    ['administrator', false],
    ['editor', false],
    ['author', true],
    ['contributor', true],
  ] as const)(
    'stored XSS in a post by an %s (title, content, excerpt): filtered on save = %s',
    async (role, filtered) => {
      const created = await site.call('POST', '/wp-json/wp/v2/posts', {
        auth: accounts[role],
        body: PAYLOAD,
      });
      expect(created.status).toBe(201);
      const { title, content, excerpt } = created.body;
      if (!filtered) {
        expect(title.raw).toBe(PAYLOAD.title);
        expect(content.raw).toBe(PAYLOAD.content);
        expect(excerpt.raw).toBe(PAYLOAD.excerpt);
        return;
      }
      expect(title.raw).toBe('XSS ');
      expect(content.raw).toBe('<p>正文</p>');
      expect(excerpt.raw).toBe('摘要');
      // And an update by the same user is filtered the same way.
      const updated = await site.call('POST', `/wp-json/wp/v2/posts/${created.body.id}`, {
        auth: accounts[role],
        body: { content: `${PAYLOAD.content}<a href="javascript:alert(1)">链接</a>` },
      });
      expect(updated.body.content.raw).toBe('<p>正文</p><a>链接</a>');
    },
  );

  it("stored XSS through autosaves: a contributor's autosave of their draft and an author's of their published post are filtered", async () => {
    const own = await site.call('POST', '/wp-json/wp/v2/posts', {
      auth: accounts.contributor,
      body: { title: '草稿', content: '<p>x</p>' },
    });
    const autosave = await site.call('POST', `/wp-json/wp/v2/posts/${own.body.id}/autosaves`, {
      auth: accounts.contributor,
      body: PAYLOAD,
    });
    expect(autosave.status).toBeLessThan(300);
    const draft = await site.call('GET', `/wp-json/wp/v2/posts/${own.body.id}?context=edit`, {
      auth: accounts.contributor,
    });
    expect(draft.body.content.raw).toBe('<p>正文</p>');
    expect(draft.body.title.raw).toBe('XSS ');

    const published = await site.call('POST', '/wp-json/wp/v2/posts', {
      auth: accounts.author,
      body: { title: '已发布', content: '<p>y</p>', status: 'publish' },
    });
    const other = await site.call('POST', `/wp-json/wp/v2/posts/${published.body.id}/autosaves`, {
      auth: accounts.author,
      body: PAYLOAD,
    });
    expect(other.status).toBe(200);
    expect(other.body.content.raw).toBe('<p>正文</p>');
    expect(other.body.excerpt.raw).toBe('摘要');
  });

  it("an author's reusable block and a page's block attributes are filtered (filter_block_kses)", async () => {
    const block = await site.call('POST', '/wp-json/wp/v2/blocks', {
      auth: accounts.author,
      body: {
        title: '块',
        status: 'publish',
        content:
          '<!-- wp:paragraph {"className":"x\\u003cimg src=x onerror=alert(1)\\u003e"} --><p onclick="alert(1)">块</p><!-- /wp:paragraph -->',
      },
    });
    expect(block.status).toBe(201);
    const raw: string = block.body.content.raw;
    expect(raw).not.toMatch(/onerror|onclick/);
    expect(raw).toContain(
      '<!-- wp:paragraph {"className":"x\\u003cimg src=\\u0022x\\u0022 /\\u003e"} -->',
    );
    expect(raw).toContain('<p>块</p><!-- /wp:paragraph -->');
  });

  it("an author's media title, caption and description are filtered", async () => {
    const png = Buffer.from(
      'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
      'base64',
    );
    const upload = await site.app.inject({
      method: 'POST',
      url: '/wp-json/wp/v2/media',
      headers: {
        authorization: accounts.author.basic,
        'content-type': 'image/png',
        'content-disposition': 'attachment; filename="a.png"',
      },
      payload: png,
    });
    expect(upload.statusCode).toBe(201);
    const id = JSON.parse(upload.body).id as number;
    const updated = await site.call('POST', `/wp-json/wp/v2/media/${id}`, {
      auth: accounts.author,
      body: {
        title: PAYLOAD.title,
        caption: PAYLOAD.excerpt,
        description: PAYLOAD.content,
      },
    });
    expect(updated.status).toBe(200);
    expect(updated.body.title.raw).toBe('XSS ');
    expect(updated.body.caption.raw).toBe('摘要');
    expect(updated.body.description.raw).toBe('<p>正文</p>');
  });

  it("a menu item's javascript: URL is never printed as a link, and its title is text", async () => {
    const admin = accounts.administrator;
    const menu = await site.call('POST', '/wp-json/wp/v2/menus', {
      auth: admin,
      body: { name: '导航', locations: ['primary'] },
    });
    const item = await site.call('POST', '/wp-json/wp/v2/menu-items', {
      auth: admin,
      body: {
        title: '<img src=x onerror=alert(1)>菜单',
        url: 'javascript:alert(document.cookie)',
        menus: menu.body.id,
        status: 'publish',
        classes: ['a"b', 'ok-class'],
      },
    });
    expect(item.status).toBe(201);
    expect(item.body.classes).toEqual(['ab', 'ok-class']);
    const home = await site.app.inject({ url: '/' });
    expect(home.body).toContain('菜单');
    expect(home.body).not.toContain('javascript:');
    expect(
      unsafeMarkup(home.body, {
        allowElement: themeFrameElement,
        allowScript: wpApiSettingsScript,
      }),
    ).toEqual([]);
  });
});
