/*
 * The web app's service worker (served at /sw.js, scope /): what makes pages already read open
 * offline. Built by esbuild when the process starts (Workbox bundled in, nothing loaded from
 * elsewhere), with this build's asset URLs written in (PRECACHE_URLS), so a deploy is a new
 * worker. It answers only same-origin GETs of two kinds; everything else goes to the network as
 * if it were not there:
 * - the hashed assets (/assets/web/NAME.HASH.EXT): cache first; their bytes never change under
 *   one URL. The ones every page loads are fetched at install.
 * - pages (navigations): network first, the cached copy when the network fails or is slower
 *   than NETWORK_TIMEOUT_SECONDS; a copy from the cache shows the page's "may be out of date"
 *   notice (markStale). The API, the account, sign-in and OAuth paths are never kept.
 * Only 200 answers are kept, in caches bounded by workbox-expiration.
 */
import { clientsClaim, type WorkboxPlugin } from 'workbox-core';
import { ExpirationPlugin } from 'workbox-expiration';
import { registerRoute } from 'workbox-routing';
import { CacheFirst, NetworkFirst } from 'workbox-strategies';
import { handleAlertPushes } from './push-alerts.js';

declare const self: ServiceWorkerGlobalScope;
/** The URLs of this build's assets every page loads (esbuild `define`). */
declare const PRECACHE_URLS: string[];
/** '/assets/web/' (esbuild `define`). */
declare const ASSET_PREFIX: string;

/** A phone on a bad line: past this, the saved copy is shown rather than a blank wait. */
const NETWORK_TIMEOUT_SECONDS = 3;
const DAY_SECONDS = 24 * 3600;

/** Paths whose pages hold a person's own things or a flow's state: never kept, never served. */
const NEVER_KEPT =
  /^\/(api|account|login|register|logout|oauth|\.well-known|admin|docs|metrics|healthz|readyz)(\/|$)/;

/** The notice every page carries hidden; a copy from the cache is sent with it shown. */
const HIDDEN_NOTICE = /(<p\b[^>]*\bdata-offline-notice)\s+hidden(?=[\s>])/;

/**
 * Keeps only a complete, same-origin 200 (no error page, no redirect) that a shared cache may
 * keep: an answer marked no-store or private is never written to disk here either.
 */
function keepOnly(type: string): WorkboxPlugin {
  return {
    async cacheWillUpdate({ response }) {
      if (response.status !== 200 || response.type !== 'basic') return null;
      if (/\b(no-store|private)\b/i.test(response.headers.get('cache-control') ?? '')) return null;
      if (!(response.headers.get('content-type') ?? '').startsWith(type)) return null;
      return response;
    },
  };
}

/**
 * A page answered from the cache: the same page with its notice shown (the `hidden` attribute
 * taken off) and `X-Emutrack-Offline-Copy: 1`. Done here, where it is known where the answer
 * came from, so the notice is in the first paint and needs no page script.
 */
const markStale: WorkboxPlugin = {
  async cachedResponseWillBeUsed({ cachedResponse }) {
    if (!cachedResponse) return cachedResponse;
    const text = await cachedResponse.text();
    const headers = new Headers(cachedResponse.headers);
    // The body is the decoded text: its stored length and encoding no longer describe it.
    headers.delete('content-length');
    headers.delete('content-encoding');
    headers.set('x-emutrack-offline-copy', '1');
    return new Response(text.replace(HIDDEN_NOTICE, '$1'), {
      status: cachedResponse.status,
      statusText: cachedResponse.statusText,
      headers,
    });
  },
};

const assets = new CacheFirst({
  cacheName: 'emutrack-assets',
  // One copy per URL whatever the encoding: the browser gives the worker the decoded body.
  matchOptions: { ignoreVary: true },
  plugins: [
    keepOnly(''),
    new ExpirationPlugin({
      maxEntries: 40,
      maxAgeSeconds: 60 * DAY_SECONDS,
      purgeOnQuotaError: true,
    }),
  ],
});

const pages = new NetworkFirst({
  cacheName: 'emutrack-pages',
  networkTimeoutSeconds: NETWORK_TIMEOUT_SECONDS,
  // Pages vary by language, scheme and encoding; offline, this browser's last copy is the one.
  matchOptions: { ignoreVary: true },
  plugins: [
    keepOnly('text/html'),
    new ExpirationPlugin({
      maxEntries: 60,
      maxAgeSeconds: 30 * DAY_SECONDS,
      purgeOnQuotaError: true,
    }),
    markStale,
  ],
});

registerRoute(
  ({ url, request }) =>
    url.origin === self.location.origin &&
    url.pathname.startsWith(ASSET_PREFIX) &&
    request.destination !== 'document',
  assets,
);
/** A page of this origin the worker may keep. */
function keptPage(url: URL): boolean {
  return url.origin === self.location.origin && !NEVER_KEPT.test(url.pathname);
}

registerRoute(({ url, request }) => request.mode === 'navigate' && keptPage(url), pages);

// The assets of this build, fetched (through the assets' strategy: counted by its expiration)
// before the worker takes over; a new worker takes over at once and the old assets it does
// not list stay until the cache's bound evicts them, for the pages saved with them.
self.addEventListener('install', (event) => {
  event.waitUntil(
    Promise.all(PRECACHE_URLS.map((url) => assets.handle({ event, request: url }))).then(() =>
      self.skipWaiting(),
    ),
  );
});
clientsClaim();
// The page that registered the worker loaded before it: kept now, as the pages after it will be
// on their way through, so that the first page read opens offline too.
self.addEventListener('activate', (event) => {
  event.waitUntil(
    self.clients.matchAll({ type: 'window' }).then((windows) =>
      Promise.all(
        windows
          .filter((client) => keptPage(new URL(client.url)))
          .map((client) =>
            pages
              .handle({
                event,
                request: new Request(client.url, { headers: { accept: 'text/html' } }),
              })
              .catch(() => undefined),
          ),
      ),
    ),
  );
});

handleAlertPushes();
