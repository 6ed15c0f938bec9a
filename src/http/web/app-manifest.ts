import { createHash } from 'node:crypto';
import type { ApiApp } from '../app-context.js';
import type { WebAssets } from './assets/web-assets.js';
import { SERVICE_WORKER_URL, preferredEncoding } from './assets/web-assets.js';
import { LANGUAGES, messagesOf, type Language } from './i18n/language.js';
import { etagMatches } from '../api/http-caching.js';
import { webViewOf } from './web-request.js';

/** The manifest's address: fixed (pages link to it), its icons' URLs hashed. */
export const MANIFEST_URL = '/manifest.webmanifest';

/** The page's colours (web.css): the accent for the browser's bar, the page's background. */
export const THEME_COLOR = '#0b57d0';
export const BACKGROUND_COLOR = '#f6f7f9';

/** The Web App Manifest (W3C) in `language`: what a browser needs to install the site. */
export function appManifest(assets: WebAssets, language: Language): Record<string, unknown> {
  const t = messagesOf(language);
  const icon = (name: string, size: number, purpose: string) => ({
    src: assets.url(name),
    sizes: `${size}x${size}`,
    type: 'image/png',
    purpose,
  });
  return {
    id: '/',
    name: t.appName,
    short_name: t.appShortName,
    description: t.pageDescription,
    lang: language,
    dir: 'ltr',
    start_url: '/',
    scope: '/',
    display: 'standalone',
    theme_color: THEME_COLOR,
    background_color: BACKGROUND_COLOR,
    icons: [
      icon('icon-192.png', 192, 'any'),
      icon('icon-512.png', 512, 'any'),
      icon('icon-maskable-512.png', 512, 'maskable'),
    ],
  };
}

/**
 * GET /manifest.webmanifest (in the reader's language, as pages are) and GET /sw.js. Both at
 * fixed addresses, so both are asked again each time (`no-cache`) and answered 304 when
 * unchanged; neither is a page view (outside the web scope: no page limit). The worker's scope
 * is its folder, the root: every page.
 */
export function registerInstallRoutes(app: ApiApp, assets: WebAssets): void {
  const manifests = new Map(
    LANGUAGES.map((language) => {
      const body = JSON.stringify(appManifest(assets, language));
      const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 16)}"`;
      return [language, { body, etag }] as const;
    }),
  );
  app.get(MANIFEST_URL, { schema: { hide: true } }, async (request, reply) => {
    const manifest = manifests.get(webViewOf(request).language)!;
    void reply
      .header('content-type', 'application/manifest+json; charset=utf-8')
      .header('cache-control', 'public, no-cache')
      .header('vary', 'Accept-Language, Cookie')
      .header('etag', manifest.etag);
    if (etagMatches(request.headers['if-none-match'], manifest.etag)) return reply.code(304).send();
    return reply.send(manifest.body);
  });

  const worker = assets.get('sw.js');
  const workerEtag = `"${worker.hash}"`;
  app.get(SERVICE_WORKER_URL, { schema: { hide: true } }, async (request, reply) => {
    void reply
      .header('content-type', worker.contentType)
      .header('cache-control', 'no-cache')
      .header('vary', 'Accept-Encoding')
      .header('etag', workerEtag);
    if (etagMatches(request.headers['if-none-match'], workerEtag)) return reply.code(304).send();
    const encoding = preferredEncoding(request.headers['accept-encoding']);
    const body = encoding === 'br' ? worker.brotli : encoding === 'gzip' ? worker.gzip : undefined;
    if (encoding && body) void reply.header('content-encoding', encoding);
    return reply.send(body ?? worker.body);
  });
}
