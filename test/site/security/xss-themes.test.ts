import { beforeAll, describe, expect, it } from 'vitest';
import { contentModule } from '../../../src/http/site/content/content-module.js';
import { createOembedModule } from '../../../src/http/site/oembed/oembed-module.js';
import { owaspXssVectors, unsafeMarkup } from '../../helpers/html-safety.js';
import { useSite, type SiteAccountFixture, type SiteFixture } from '../site-fixture.js';
import { siteSessionSecret, themeFrameElement, wpApiSettingsScript } from './site-session.js';

const VECTORS = owaspXssVectors();
const PAGE = { allowElement: themeFrameElement, allowScript: wpApiSettingsScript };

interface Stored {
  vector: string;
  id: number;
  link: string;
}

/**
 * Stored XSS by authors: every OWASP vector saved by an author as a
 * post's title, content and excerpt (and by a contributor as a draft), then every page of a theme
 * that prints them, read as a browser would. Both themes: the block theme (templates module) and
 * the classic one (no templates).
 */
function xssThroughTheme(themeName: string, site: SiteFixture) {
  let author: SiteAccountFixture;
  let contributor: SiteAccountFixture;
  let admin: SiteAccountFixture;
  let adminCookie: string;
  const published: Stored[] = [];
  const drafts: Stored[] = [];

  beforeAll(async () => {
    author = await site.account('author', 'author');
    contributor = await site.account('contributor', 'contributor');
    admin = await site.account('admin', 'administrator');
    adminCookie = `token=${await siteSessionSecret(site.db, admin.id)}`;
    for (const [i, vector] of VECTORS.entries()) {
      // Every other post without an excerpt: the theme then makes one from the content.
      const post = await site.call('POST', '/wp-json/wp/v2/posts', {
        auth: author,
        body: { title: vector, content: vector, excerpt: i % 2 ? vector : '', status: 'publish' },
      });
      expect(post.status, vector).toBe(201);
      published.push({ vector, id: post.body.id, link: post.body.link });
      const draft = await site.call('POST', '/wp-json/wp/v2/posts', {
        auth: contributor,
        body: { title: vector, content: vector, excerpt: vector, status: 'draft' },
      });
      expect(draft.status, vector).toBe(201);
      drafts.push({ vector, id: draft.body.id, link: draft.body.link });
    }
  }, 300_000);

  const page = async (url: string, cookie?: string) => {
    const res = await site.app.inject({ url, headers: cookie ? { cookie } : {} });
    expect(res.statusCode, url).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    return res.body;
  };

  it(`${themeName}: the front page (titles and excerpts of every stored payload) runs nothing`, async () => {
    const pages = Math.ceil(VECTORS.length / 10);
    for (let n = 1; n <= pages; n++) {
      const html = await page(`/?paged=${n}`);
      expect(unsafeMarkup(html, PAGE), `page ${n}`).toEqual([]);
    }
  });

  it.each(VECTORS.map((v, i) => [i + 1, v] as const))(
    `${themeName}: the post page of OWASP vector %i (title, <title>, content) runs nothing`,
    async (n) => {
      const { id, link } = published[n - 1]!;
      for (const url of [`/?p=${id}`, new URL(link).pathname]) {
        expect(unsafeMarkup(await page(url), PAGE), url).toEqual([]);
      }
    },
  );

  it.each(VECTORS.map((v, i) => [i + 1, v] as const))(
    `${themeName}: an administrator's preview of a contributor's draft with OWASP vector %i runs nothing`,
    async (n) => {
      const { id } = drafts[n - 1]!;
      const html = await page(`/?p=${id}&preview=true`, adminCookie);
      // The preview is the signed-in page: wpApiSettings (with its CSP nonce) is there.
      expect(html).toContain('var wpApiSettings=');
      expect(unsafeMarkup(html, PAGE)).toEqual([]);
    },
  );

  it(`${themeName}: title.rendered, content.rendered and excerpt.rendered of every payload run nothing`, async () => {
    for (const { id, vector } of [...published, ...drafts]) {
      const post = await site.call('GET', `/wp-json/wp/v2/posts/${id}?context=edit`, {
        auth: admin,
      });
      for (const field of ['title', 'content', 'excerpt'])
        expect(unsafeMarkup(post.body[field].rendered), `${field} of ${vector}`).toEqual([]);
    }
  });
}

describe('stored XSS through the block theme', () => {
  const site = useSite();
  xssThroughTheme('block theme', site);
});

describe('stored XSS through the classic theme', () => {
  const site = useSite({ modules: () => [contentModule, createOembedModule()] });
  xssThroughTheme('classic theme', site);
});
