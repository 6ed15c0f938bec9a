import { createHash } from 'node:crypto';
import path from 'node:path';
import { brotliCompressSync, constants as zlib, gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { packageRoot } from '../../../shared/app/package-root.js';

/** Where the web app's hashed assets are served. */
export const WEB_ASSET_PREFIX = '/assets/web/';

/** One file the pages load: the same bytes for the life of the process, under a hashed name. */
export interface WebAsset {
  /** The name pages ask for ('main.js'). */
  name: string;
  /** The URL with the content's hash in it ('/assets/web/main.3f2a9c1b0d.js'). */
  url: string;
  contentType: string;
  body: Buffer;
  /** Compressed once at start: a request never pays for it. */
  gzip: Buffer;
  brotli: Buffer;
}

/** A source the build makes an asset of (relative to the client folder). */
interface Entry {
  name: string;
  source: string;
  contentType: string;
}

const ENTRIES: readonly Entry[] = [
  { name: 'main.js', source: 'main.ts', contentType: 'text/javascript; charset=utf-8' },
  { name: 'web.css', source: 'web.css', contentType: 'text/css; charset=utf-8' },
];

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
async function bundle(source: string, define: Record<string, string>): Promise<Buffer> {
  const result = await build({
    entryPoints: [path.join(clientSourceDir(), source)],
    bundle: true,
    minify: true,
    write: false,
    format: source.endsWith('.css') ? undefined : 'iife',
    target: ['es2020', 'chrome90', 'safari14', 'firefox90'],
    legalComments: 'none',
    logLevel: 'silent',
    define,
  });
  const [file] = result.outputFiles;
  if (!file) throw new Error(`esbuild made nothing of ${source}`);
  return Buffer.from(file.contents);
}

/**
 * The web app's scripts and stylesheet, built once per process (esbuild bundles and minifies the
 * client sources in well under a second) and served under names that change with their content,
 * so that they can be cached for a year (`immutable`) and a deploy is never half-seen.
 */
export class WebAssets {
  private constructor(private readonly byName: ReadonlyMap<string, WebAsset>) {}

  static async build(): Promise<WebAssets> {
    const byName = new Map<string, WebAsset>();
    for (const entry of ENTRIES) {
      const body = await bundle(entry.source, {});
      const dot = entry.name.lastIndexOf('.');
      const url = `${WEB_ASSET_PREFIX}${entry.name.slice(0, dot)}.${hashOf(body)}${entry.name.slice(dot)}`;
      byName.set(entry.name, { ...entry, url, body, ...compressed(body) });
    }
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

  /** Every asset, for serving and for the service worker's list of what to keep. */
  all(): WebAsset[] {
    return [...this.byName.values()];
  }

  /** The asset at `url` (a hashed URL of this build), else undefined. */
  atUrl(url: string): WebAsset | undefined {
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
