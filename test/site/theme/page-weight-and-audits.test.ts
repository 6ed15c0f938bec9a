import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { noCjkFontConfig, systemCjkFontConfig } from '../../../bench/cjk-system-font.js';
import { PAGE_FONT_BASE } from '../../../src/http/site/theme/page-font-subset.js';
import { launchChromium, useChromium } from '../../helpers/browser.js';
import { useManualSite } from '../manual-fixture.js';

/**
 * The site's pages as Lighthouse judges them (npm run bench -- --only lighthouse measures the
 * scores): what the fonts weigh, with and without a CJK font on the reader's machine, and the
 * properties its audits check (language, description, icon, robots.txt, contrast, a console
 * without errors).
 */

/** The bound on the fonts one page of the site may load in a browser without CJK fonts. */
const FONT_BYTES_BOUND = 512 * 1024;

/**
 * Run in the page (a string: the test is compiled without the DOM's types): every visible
 * element with text of its own whose colour on its background is under WCAG AA's ratio (4.5:1,
 * 3:1 for large text), as Lighthouse's colour-contrast audit reads it.
 */
const LOW_CONTRAST = `(() => {
  const rgba = (s) => (s.match(/[\\d.]+/g) || []).map(Number);
  const lum = ([r, g, b]) => {
    const c = [r, g, b].map((v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; });
    return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
  };
  const background = (el) => {
    for (let e = el; e; e = e.parentElement) {
      const c = rgba(getComputedStyle(e).backgroundColor);
      if (c.length === 3 || (c.length === 4 && c[3] > 0)) return c;
    }
    return [255, 255, 255];
  };
  const low = [];
  for (const el of document.body.querySelectorAll('*')) {
    const own = [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
    if (!own || el.getClientRects().length === 0) continue;
    const style = getComputedStyle(el);
    if (style.visibility === 'hidden' || style.clip === 'rect(0px, 0px, 0px, 0px)') continue;
    const a = lum(rgba(style.color)), b = lum(background(el));
    const ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
    const size = parseFloat(style.fontSize);
    const large = size >= 24 || (size >= 18.66 && Number(style.fontWeight) >= 700);
    if (ratio < (large ? 3 : 4.5)) low.push(el.tagName.toLowerCase() + '.' + el.className + ' ' + ratio.toFixed(2) + ':1');
  }
  return low;
})()`;

describe("the site's pages: font weight and Lighthouse's audits", () => {
  const manual = useManualSite({ listen: true });
  const chromium = useChromium();
  const url = (p: string) => `${manual.site.url}${p}`;
  let postPath = '';
  const pages = () => ['/', postPath, '/manual/', '/manual/getting-started/'];

  const page = async (p: string) => {
    const res = await fetch(url(p));
    expect(res.status, p).toBe(200);
    return res.text();
  };
  const welcomePost = async () => {
    const res = await manual.site.call('GET', '/wp-json/wp/v2/posts?slug=welcome');
    const [post] = res.body as { link: string; excerpt: { rendered: string } }[];
    postPath = new URL(post!.link).pathname;
    return post!;
  };

  it('references no whole TrueType or OpenType font, in the front page or its stylesheets', async () => {
    const html = await page('/');
    const sheets = [...html.matchAll(/<link rel="stylesheet" href="([^"]+)">/g)].map((m) => m[1]!);
    expect(sheets.length).toBeGreaterThan(0);
    const css = await Promise.all(sheets.map(async (s) => (await fetch(url(s))).text()));
    for (const text of [html, ...css]) {
      expect(text).not.toMatch(/\.(ttf|otf)\b/);
      expect(text).not.toMatch(/format\(["']?(truetype|opentype)/);
    }
    // The systems' CJK fonts come before anything the site serves.
    expect(html).toMatch(/font:16px\/1\.7 system-ui,[^;]*"PingFang SC"[^;]*"Microsoft YaHei"/);
  });

  /** Every font a page fetched, their paths and their bytes, in a fresh browser context. */
  const fontsFetched = async (browser: Awaited<ReturnType<typeof chromium.browser>>, p: string) => {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const tab = await context.newPage();
    const bodies: Promise<number>[] = [];
    const types: string[] = [];
    const paths: string[] = [];
    tab.on('response', (res) => {
      if (res.request().resourceType() !== 'font') return;
      types.push(String(res.headers()['content-type']));
      paths.push(new URL(res.url()).pathname);
      bodies.push(res.body().then((b) => b.length));
    });
    await tab.goto(url(p), { waitUntil: 'load' });
    await tab.evaluate('document.fonts.ready.then(() => true)');
    const bytes = (await Promise.all(bodies)).reduce((a, b) => a + b, 0);
    await context.close();
    return { bytes, types, paths };
  };

  // Two browsers, eight page loads: more than the default time on a busy machine.
  it(
    `loads under ${FONT_BYTES_BOUND / 1024} KB of WOFF2 fonts a page where the machine has no CJK font, and only its preloaded subset where it has one`,
    { timeout: 120_000 },
    async () => {
      await welcomePost();
      const dir = await mkdtemp(path.join(tmpdir(), 'emutrack-fonts-'));
      // The machine's CJK fonts (if it has any) left out.
      const withoutCjk = await launchChromium({
        env: { FONTCONFIG_FILE: await noCjkFontConfig(dir) },
      });
      const withCjk = await launchChromium({
        env: { FONTCONFIG_FILE: await systemCjkFontConfig(dir) },
      });
      try {
        for (const p of pages()) {
          const { bytes, types, paths } = await fontsFetched(withoutCjk.browser, p);
          // Chinese is on every page (the chrome): without a CJK font of its own the browser
          // needs some face: the page's own subset first.
          expect(bytes, p).toBeGreaterThan(0);
          expect(bytes, p).toBeLessThan(FONT_BYTES_BOUND);
          expect(new Set(types), p).toEqual(new Set(['font/woff2']));
          expect(paths[0], p).toMatch(new RegExp(`^${PAGE_FONT_BASE}/`));
        }
        // With one, only the subset comes (the preload fetches it unasked), never a slice.
        for (const p of pages()) {
          const { bytes, paths } = await fontsFetched(withCjk.browser, p);
          expect(paths, p).toEqual([expect.stringMatching(new RegExp(`^${PAGE_FONT_BASE}/`))]);
          expect(bytes, p).toBeLessThan(32 * 1024);
        }
      } finally {
        await withoutCjk.close();
        await withCjk.close();
        await rm(dir, { recursive: true, force: true });
      }
    },
  );

  it('gives every page its language, a viewport, a description and an icon', async () => {
    const post = await welcomePost();
    for (const p of pages()) {
      const html = await page(p);
      expect(html, p).toMatch(/^<!DOCTYPE html>\n<html lang="zh-CN">/);
      expect(html, p).toContain(
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
      );
      const description = /<meta name="description" content="([^"]*)">/.exec(html)?.[1];
      expect(description?.trim().length, p).toBeGreaterThan(10);
      expect(description, p).not.toMatch(/</);
      const icon = /<link rel="icon" href="([^"]+)" type="image\/svg\+xml">/.exec(html)?.[1];
      const res = await fetch(url(icon!));
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('image/svg+xml');
    }
    // A post's description is the text its excerpt begins with; the front page's the tagline.
    const words = post.excerpt.rendered
      .replace(/<[^>]*>/g, '')
      .trim()
      .slice(0, 20);
    expect(await page(postPath)).toContain(`<meta name="description" content="${words}`);
    expect(await page('/')).toContain('<meta name="description" content="emutrack：');
    // Browsers that find no icon named ask for /favicon.ico: never a 404 (a console error).
    const favicon = await fetch(url('/favicon.ico'), { redirect: 'manual' });
    expect(favicon.status).toBe(200);
    expect(favicon.headers.get('content-type')).toBe('image/x-icon');
  });

  it('serves a robots.txt that lets the pages be crawled', async () => {
    const res = await fetch(url('/robots.txt'));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/plain; charset=UTF-8');
    const text = await res.text();
    expect(text).toMatch(/^User-agent: \*$/m);
    expect(text).not.toMatch(/^Disallow: \/$/m);
  });

  it(
    'has text in AA contrast on every page and a console without errors or failed requests',
    { timeout: 120_000 },
    async () => {
      await welcomePost();
      const browser = await chromium.browser();
      const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
      const tab = await context.newPage();
      const errors: string[] = [];
      tab.on('console', (m) => {
        if (m.type() === 'error') errors.push(m.text());
      });
      tab.on('response', (res) => {
        if (res.status() >= 400) errors.push(`${res.status()} ${res.url()}`);
      });
      try {
        for (const p of pages()) {
          await tab.goto(url(p), { waitUntil: 'load' });
          expect(await tab.evaluate<string[]>(LOW_CONTRAST), p).toEqual([]);
        }
        expect(errors).toEqual([]);
        // The check sees a low contrast (it is not vacuous).
        await tab.setContent('<p style="color:#787c82">浅灰</p>');
        expect(await tab.evaluate<string[]>(LOW_CONTRAST)).toHaveLength(1);
      } finally {
        await context.close();
      }
    },
  );
});
