import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiApp } from '../../src/http/api/app.js';
import { useTestDatabase } from '../helpers/test-db.js';
import { makeApp } from '../api/helpers/api-harness.js';
import { shanghaiClock } from '../api/helpers/fixture-week.js';
import { GENEROUS_LIMITS, WEB_TODAY } from './helpers/web-harness.js';

const t = useTestDatabase();
let app: ApiApp;

beforeAll(async () => {
  app = await makeApp(t.current.db, { clock: shanghaiClock(WEB_TODAY), env: GENEROUS_LIMITS });
});
afterAll(async () => app?.close());

const browser = { accept: 'text/html,application/xhtml+xml' };

interface Icon {
  src: string;
  sizes: string;
  type: string;
  purpose: string;
}

describe('installing the web app', () => {
  it('links every page to a manifest a browser can install from, in the reader’s language', async () => {
    const page = await app.inject({ url: '/', headers: browser });
    expect(page.body).toContain('<link rel="manifest" href="/manifest.webmanifest" />');
    const res = await app.inject({ url: '/manifest.webmanifest' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/manifest+json; charset=utf-8');
    expect(res.headers['cache-control']).toBe('public, no-cache');
    const manifest = JSON.parse(res.body) as Record<string, unknown>;
    expect(manifest).toMatchObject({
      name: 'emutrack：动车组担当查询',
      short_name: 'emutrack',
      lang: 'zh-CN',
      start_url: '/',
      scope: '/',
      display: 'standalone',
    });
    expect(manifest.theme_color).toMatch(/^#[0-9a-f]{6}$/);
    expect(manifest.background_color).toMatch(/^#[0-9a-f]{6}$/);
    const en = await app.inject({
      url: '/manifest.webmanifest',
      headers: { 'accept-language': 'en-GB,en;q=0.8' },
    });
    expect(JSON.parse(en.body)).toMatchObject({ lang: 'en', name: expect.stringMatching(/EMU/) });
    expect(en.headers.vary).toBe('Accept-Language, Cookie');
    const again = await app.inject({
      url: '/manifest.webmanifest',
      headers: { 'if-none-match': res.headers.etag as string },
    });
    expect(again.statusCode).toBe(304);
  });

  it('names icons of 192 and 512 px and a maskable one, each a PNG of its size, cached for a year', async () => {
    const manifest = JSON.parse((await app.inject({ url: '/manifest.webmanifest' })).body) as {
      icons: Icon[];
    };
    const described = manifest.icons.map((i) => `${i.sizes} ${i.purpose}`).sort();
    expect(described).toEqual(['192x192 any', '512x512 any', '512x512 maskable']);
    for (const icon of manifest.icons) {
      expect(icon.src).toMatch(/^\/assets\/web\/icon-[\w-]+\.[\w-]{12}\.png$/);
      expect(icon.type).toBe('image/png');
      const res = await app.inject({ url: icon.src, headers: { 'accept-encoding': 'br, gzip' } });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe('image/png');
      expect(res.headers['content-encoding']).toBeUndefined();
      expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      const size = Number(icon.sizes.split('x')[0]);
      const meta = await sharp(res.rawPayload).metadata();
      expect({ format: meta.format, width: meta.width, height: meta.height }).toEqual({
        format: 'png',
        width: size,
        height: size,
      });
    }
    // The maskable icon is full-bleed: its corner is the background colour, not transparent.
    const maskable = manifest.icons.find((i) => i.purpose === 'maskable')!;
    const corner = await sharp((await app.inject({ url: maskable.src })).rawPayload)
      .extract({ left: 0, top: 0, width: 1, height: 1 })
      .ensureAlpha()
      .raw()
      .toBuffer();
    expect(corner[3]).toBe(255);
  });

  it('serves the service worker at /sw.js, asked again each time, holding this build’s asset URLs', async () => {
    const page = await app.inject({ url: '/', headers: browser });
    const css = page.body.match(/href="(\/assets\/web\/web\.[\w-]{12}\.css)"/)![1]!;
    const js = page.body.match(/src="(\/assets\/web\/main\.[\w-]{12}\.js)"/)![1]!;
    const res = await app.inject({ url: '/sw.js' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(res.headers['cache-control']).toBe('no-cache');
    expect(res.body).toContain(JSON.stringify(css));
    expect(res.body).toContain(JSON.stringify(js));
    // Workbox is bundled in: nothing is loaded from elsewhere.
    expect(res.body).toContain('emutrack-pages');
    expect(res.body).not.toContain('importScripts');
    expect(res.body).not.toMatch(/https?:\/\//);
    const br = await app.inject({ url: '/sw.js', headers: { 'accept-encoding': 'br' } });
    expect(br.headers['content-encoding']).toBe('br');
    const again = await app.inject({
      url: '/sw.js',
      headers: { 'if-none-match': res.headers.etag as string },
    });
    expect(again.statusCode).toBe(304);
    // No hashed copy of it: a worker is found by its one address.
    expect(page.body).not.toMatch(/\/assets\/web\/sw\./);
  });
});
