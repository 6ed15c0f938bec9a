import { createHash } from 'node:crypto';
import path from 'node:path';
import { brotliCompressSync, constants as zlib, gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { packageRoot } from '../../../shared/app/package-root.js';
import { appIcons } from './app-icons.js';

/** Where the web app's hashed assets are served. */
export const WEB_ASSET_PREFIX = '/assets/web/';

/** Where the service worker is served: at the root, so that its scope is every page. */
export const SERVICE_WORKER_URL = '/sw.js';

/** One file the pages load: the same bytes for the life of the process, under a hashed name. */
export interface WebAsset {
  /** The name pages ask for ('main.js'). */
  name: string;
  /**
   * The URL with the content's hash in it ('/assets/web/main.3f2a9c1b0d.js'); the service
   * worker's is its fixed address (a browser finds a new worker by fetching the same URL).
   */
  url: string;
  contentType: string;
  body: Buffer;
  /** The hash of the body (also the URL's): the service worker's ETag. */
  hash: string;
  /** Compressed once at start: a request never pays for it. None for PNG (compressed already). */
  gzip?: Buffer;
  brotli?: Buffer;
}

/** A source the build makes an asset of (relative to the client folder). */
interface Entry {
  name: string;
  source: string;
  contentType: string;
}

const SCRIPT = 'text/javascript; charset=utf-8';

/** What pages load: the service worker keeps these from its install on (see sw/sw.ts). */
const ENTRIES: readonly Entry[] = [
  { name: 'main.js', source: 'main.ts', contentType: SCRIPT },
  { name: 'web.css', source: 'web.css', contentType: 'text/css; charset=utf-8' },
];

/**
 * Scripts of one page each, loaded by that page alone (webPage's `scripts`) and not precached:
 * the report form's QR reader carries jsQR, which no other page needs.
 */
const PAGE_ENTRIES: readonly Entry[] = [
  { name: 'report-photo.js', source: 'report-photo.ts', contentType: SCRIPT },
];

/** The service worker's source; built last, with the URLs of this build's assets in it. */
const SERVICE_WORKER_SOURCE = 'sw/sw.ts';

/** The browser's sources: read from the package (src/ ships with the build and the image). */
export function clientSourceDir(): string {
  return path.join(packageRoot(), 'src', 'http', 'web', 'client');
}

function hashOf(body: Buffer): string {
  return createHash('sha256').update(body).digest('base64url').slice(0, 12);
}

function compressed(body: Buffer): { gzip: Buffer; brotli: Buffer } {
  return {
    gzip: gzipSync(body, { level: 9 }),
    brotli: brotliCompressSync(body, {
      params: {
        [zlib.BROTLI_PARAM_QUALITY]: zlib.BROTLI_MAX_QUALITY,
        [zlib.BROTLI_PARAM_SIZE_HINT]: body.byteLength,
      },
    }),
  };
}

/** Builds `source` (TypeScript bundled, or CSS) into minified bytes with esbuild. */
async function bundle(
  source: string,
  define: Record<string, string>,
  target: string[] = ['es2020', 'chrome90', 'safari14', 'firefox90'],
): Promise<Buffer> {
  const result = await build({
    entryPoints: [path.join(clientSourceDir(), source)],
    bundle: true,
    minify: true,
    write: false,
    format: source.endsWith('.css') ? undefined : 'iife',
    target,
    legalComments: 'none',
    logLevel: 'silent',
    define,
  });
  const [file] = result.outputFiles;
  if (!file) throw new Error(`esbuild made nothing of ${source}`);
  return Buffer.from(file.contents);
}

/**
 * The web app's scripts, stylesheet and install icons, built once per process (esbuild bundles
 * and minifies the client sources in well under a second; sharp draws the icons) and served under
 * names that change with their content, so that they can be cached for a year (`immutable`) and
 * a deploy is never half-seen; and the service worker, at its one fixed address.
 */
export class WebAssets {
  private constructor(private readonly byName: ReadonlyMap<string, WebAsset>) {}

  static async build(): Promise<WebAssets> {
    const byName = new Map<string, WebAsset>();
    const hashed = (name: string, hash: string) => {
      const dot = name.lastIndexOf('.');
      return `${WEB_ASSET_PREFIX}${name.slice(0, dot)}.${hash}${name.slice(dot)}`;
    };
    for (const entry of [...ENTRIES, ...PAGE_ENTRIES]) {
      const body = await bundle(entry.source, {});
      const hash = hashOf(body);
      const url = hashed(entry.name, hash);
      byName.set(entry.name, { ...entry, url, hash, body, ...compressed(body) });
    }
    for (const icon of await appIcons()) {
      const hash = hashOf(icon.png);
      byName.set(icon.name, {
        name: icon.name,
        url: hashed(icon.name, hash),
        contentType: 'image/png',
        hash,
        body: icon.png,
      });
    }
    // The worker holds the URLs of the assets every page loads (so they are kept from its
    // install on) and changes with them: a deploy's new assets are a new worker's bytes, which
    // is what makes a browser install it.
    const precache = ENTRIES.map((e) => byName.get(e.name)!.url);
    const worker = await bundle(
      SERVICE_WORKER_SOURCE,
      {
        PRECACHE_URLS: JSON.stringify(precache),
        ASSET_PREFIX: JSON.stringify(WEB_ASSET_PREFIX),
        // Workbox's development logging goes when this is "production".
        'process.env.NODE_ENV': JSON.stringify('production'),
      },
      // Safari 15 up: esbuild cannot lower idb's destructuring for Safari 14's bug with it,
      // and a browser without a worker keeps the plain site anyway.
      ['es2020', 'chrome90', 'safari15', 'firefox90'],
    );
    byName.set('sw.js', {
      name: 'sw.js',
      url: SERVICE_WORKER_URL,
      contentType: SCRIPT,
      hash: hashOf(worker),
      body: worker,
      ...compressed(worker),
    });
    return new WebAssets(byName);
  }

  /** The asset pages link to as `name`; throws for a name that was never built (a bug). */
  get(name: string): WebAsset {
    const asset = this.byName.get(name);
    if (!asset) throw new Error(`no web asset named ${name}`);
    return asset;
  }

  url(name: string): string {
    return this.get(name).url;
  }

  /** Every asset (the service worker's too). */
  all(): WebAsset[] {
    return [...this.byName.values()];
  }

  /** The asset at `url` (a hashed URL of this build under the prefix), else undefined. */
  atUrl(url: string): WebAsset | undefined {
    if (!url.startsWith(WEB_ASSET_PREFIX)) return undefined;
    for (const asset of this.byName.values()) if (asset.url === url) return asset;
    return undefined;
  }
}

/** The encoding to send (brotli before gzip), from an Accept-Encoding header. */
export function preferredEncoding(acceptEncoding: string | undefined): 'br' | 'gzip' | undefined {
  if (!acceptEncoding) return undefined;
  const offered = new Map<string, number>();
  for (const part of acceptEncoding.slice(0, 256).split(',')) {
    const [coding = '', ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    offered.set(coding.trim(), q === undefined ? 1 : Number(q.slice(2)) || 0);
  }
  const wildcard = offered.get('*') ?? 0;
  if ((offered.get('br') ?? wildcard) > 0) return 'br';
  if ((offered.get('gzip') ?? wildcard) > 0) return 'gzip';
  return undefined;
}
