import { describe, expect, it } from 'vitest';
import { contentModule } from '../../src/http/site/content/content-module.js';
import { THEME_FONT_STACK, THEME_WEB_FONT } from '../../src/http/site/theme/theme-fonts.js';
import { useManualSite } from './manual-fixture.js';

/** The first element of a class in the page, with its contents ('' when absent). */
function part(html: string, tag: string, cls: string): string {
  const m = new RegExp(`<${tag} class="${cls}"[\\s\\S]*?</${tag}>`).exec(html);
  return m?.[0] ?? '';
}

/** The links of an HTML fragment: [path (site links) or URL, text]. */
function links(html: string, site: string): [string, string][] {
  return [...html.matchAll(/<a href="([^"]*)"[^>]*>([\s\S]*?)<\/a>/g)].map((m) => [
    m[1]!.replace(/&#38;/g, '&').startsWith(site) ? m[1]!.slice(site.length) : m[1]!,
    m[2]!.replace(/<[^>]*>/g, ''),
  ]);
}

const unescape = (s: string) =>
  s.replace(/&#(\d+);/g, (_m, n: string) => String.fromCharCode(Number(n))).replace(/&amp;/g, '&');

describe('the manual on the site: page tree, sidebar, breadcrumbs, previous/next, search box', () => {
  const manual = useManualSite();
  const site = manual.site;

  const get = async (path: string) => {
    const res = await site.call('GET', path);
    expect(res.status, path).toBe(200);
    return res.body as string;
  };

  it('gives every chapter its breadcrumbs, the sidebar with itself marked, and previous/next in reading order', async () => {
    const chapters = manual.source.chapters;
    expect(chapters.length).toBeGreaterThanOrEqual(10);
    const order = ['/manual/', ...chapters.map((c) => `/manual/${c.slug}/`)];
    for (const [i, chapter] of chapters.entries()) {
      const path = `/manual/${chapter.slug}/`;
      const html = await get(path);
      // Breadcrumbs: 首页 › 使用手册 › the chapter.
      const crumbs = part(html, 'nav', 'breadcrumbs');
      expect(links(crumbs, site.url)).toEqual([
        ['/', '首页'],
        ['/manual/', '使用手册'],
      ]);
      expect(unescape(crumbs)).toContain(`>${chapter.title}</li>`);
      // Sidebar: every chapter in order, this one current.
      const sidebar = part(html, 'aside', 'page-sidebar');
      expect(links(sidebar, site.url).map(([href]) => href)).toEqual(order);
      expect(sidebar).toMatch(new RegExp(`<a href="${site.url}${path}" aria-current="page"`));
      expect(sidebar.match(/aria-current/g)).toHaveLength(1);
      // Previous and next.
      const pager = part(html, 'nav', 'page-pager');
      const prev = /<a href="([^"]*)" rel="prev"/.exec(pager)?.[1];
      const next = /<a href="([^"]*)" rel="next"/.exec(pager)?.[1];
      expect(prev, path).toBe(`${site.url}${order[i]}`);
      expect(next, path).toBe(order[i + 2] ? `${site.url}${order[i + 2]}` : undefined);
      // One language per page: Chinese chrome, the chapter's text marked English.
      expect(html).toMatch(/^<!DOCTYPE html>\s*<html lang="zh-CN">/);
      expect(html).toMatch(/<div class="entry-content wp-block-post-content" lang="en">/);
      expect(html).toContain('本页内容为英文（English）');
      expect(html).toContain('<form role="search"');
    }
  });

  it('lists the chapters on the parent pages (manual and API reference), in order', async () => {
    const html = await get('/manual/');
    const chapters = part(html, 'nav', 'page-chapters');
    expect(links(chapters, site.url).map(([href]) => href)).toEqual(
      manual.source.chapters.map((c) => `/manual/${c.slug}/`),
    );
    expect(part(html, 'nav', 'page-pager')).not.toContain('rel="prev"');
    expect(html).not.toContain('本页内容为英文');
    const reference = await get('/api-reference/');
    const groups = links(part(reference, 'nav', 'page-chapters'), site.url);
    expect(groups.length).toBeGreaterThanOrEqual(8);
    expect(groups.map(([, text]) => text)).toContain('Records');
    for (const [href] of groups) expect(href).toMatch(/^\/api-reference\/api-[a-z-]+\/$/);
    // The reference pages are English through and through (no Chinese table headers).
    const records = await get('/api-reference/api-records/');
    expect(records).toContain('<th>Parameter</th>');
    expect(records).not.toContain('参数');
  });

  it('has no dead link: every site link of every page answers 200 and every anchor is a heading', async () => {
    const cache = new Map<string, string>();
    const page = async (path: string) => {
      if (!cache.has(path)) cache.set(path, await get(path));
      return cache.get(path)!;
    };
    let checked = 0;
    let anchors = 0;
    for (const path of ['/', ...manual.pagePaths]) {
      const html = await page(path);
      const main = html.slice(html.indexOf('<body'));
      for (const [href, text] of links(main, site.url)) {
        if (/^[a-z]+:/.test(href)) continue; // another site or the API's own pages
        const [target = '', anchor] = href.split('#');
        const targetPath = target === '' ? path : target;
        const where = `${path}: [${text}](${href})`;
        if (targetPath.startsWith('/?')) continue; // the blog's pages and search
        expect(targetPath, where).toMatch(/^\//);
        const linked = await page(targetPath);
        checked++;
        if (anchor) {
          anchors++;
          expect(linked, where).toContain(`id="${anchor}"`);
        }
      }
    }
    expect(checked).toBeGreaterThan(100);
    expect(anchors).toBeGreaterThan(5);
  });

  it('answers /?s= with the matching pages and the search box keeps the words', async () => {
    const html = await get('/?s=circulation%20picture');
    expect(html).toContain('“circulation picture”的搜索结果');
    expect(html).toContain(`href="${site.url}/manual/circulations/"`);
    expect(html).toContain('value="circulation picture"');
  });

  it('styles wp-login.php with the CJK font stack and links back to the site and the manual', async () => {
    const html = await get('/wp-login.php');
    expect(html).toContain(`<link rel="stylesheet" href="${THEME_WEB_FONT.stylesheetUrl}">`);
    expect(html).toContain(`font:16px/1.6 ${THEME_FONT_STACK}`);
    expect(html).toContain('<a href="/manual/">使用手册</a>');
  });

  it("links the API's own pages (account, sign-in) from every page", async () => {
    const html = await get('/manual/');
    expect(html).toContain('<a href="http://localhost:3000/account">账户与 API 密钥</a>');
  });

  it('serves the stylesheet and the search script the pages link to, cached by their content', async () => {
    const html = await get('/manual/api/');
    const css = /<link rel="stylesheet" href="([^"]+)">/.exec(html)?.[1];
    const js = /<script src="([^"]+)" defer><\/script>/.exec(html)?.[1];
    expect(css).toMatch(/^\/wp-content\/themes\/emutrack\/site\.css\?ver=[0-9a-f]{12}$/);
    expect(js).toMatch(/^\/wp-content\/themes\/emutrack\/search\.js\?ver=[0-9a-f]{12}$/);
    for (const [path, type] of [
      [css!, 'text/css'],
      [js!, 'text/javascript'],
    ] as const) {
      const res = await site.app.inject({ method: 'GET', url: path });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toContain(type);
      expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      const again = await site.app.inject({
        method: 'GET',
        url: path,
        headers: { 'if-none-match': String(res.headers.etag) },
      });
      expect(again.statusCode).toBe(304);
    }
    const script = await site.app.inject({ method: 'GET', url: js! });
    expect(script.body).toContain("'wp/v2/search?type=post&subtype=any");
  });
});

describe('the manual under the classic theme (no block templates)', () => {
  const manual = useManualSite({ modules: () => [contentModule] });

  it('has the same navigation around a chapter', async () => {
    const res = await manual.site.call('GET', '/manual/oauth/');
    expect(res.status).toBe(200);
    const html = res.body as string;
    expect(html).toContain('<nav class="breadcrumbs"');
    expect(html).toContain('<aside class="page-sidebar">');
    expect(html).toMatch(/<a href="[^"]*\/manual\/accounts\/" rel="prev"/);
    expect(html).toMatch(/<a href="[^"]*\/manual\/operations\/" rel="next"/);
    expect(html).toMatch(/<article id="post-\d+" class="page type-page" lang="en">/);
  });
});
