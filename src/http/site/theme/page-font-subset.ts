import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import type { FastifyInstance } from 'fastify';
import { Piscina } from 'piscina';
import { Lru } from '../../../shared/cache/lru.js';
import { escapeHtml } from '../../html/escape.js';

/**
 * A page's own Chinese characters as one small face, for a reader whose machine has no CJK font.
 * The served slices (cjk-web-font.ts) are found only once the text is laid out, so they arrive
 * after the first paint and the text shifts when they swap in; `font-display: optional` would
 * leave boxes on a first visit. Instead each page names, in its head, a face cut from Noto Sans SC
 * to exactly the characters it holds (a page of the manual: 50 to 100 of them, 8 to 20 KB of
 * WOFF2), preloaded and drawn with `font-display: block`, so the text paints once, in it. The
 * slices stay behind it in the font stack for what the page gains later (search results, typed
 * text). Its family is its own: faces of one family with overlapping ranges are tried last
 * declared first, so under the slices' family the slices would win.
 */
export const PAGE_FONT_FAMILY = 'Noto Sans SC Page';

/** Where the subsets are served: `${PAGE_FONT_BASE}/<hash>.woff2`. */
export const PAGE_FONT_BASE = '/wp-content/fonts/noto-sans-sc-page';

/** A page with more distinct characters gets no subset (the slices serve it, as before). */
export const MAX_SUBSET_CHARS = 400;

const require = createRequire(import.meta.url);

/** [from, to] code point ranges of a `unicode-range` list (`U+4e00-4e02,U+ff01`). */
function parseRanges(list: string): [number, number][] {
  return list.split(',').map((part) => {
    const [from, to] = part.trim().slice(2).split('-');
    return [parseInt(from!, 16), parseInt(to ?? from!, 16)];
  });
}

/**
 * The characters a page's subset holds: those of the served face's numbered (Chinese) slices
 * that are in none of its Latin, Cyrillic and Vietnamese ranges, i.e. what the browser draws in
 * the served face because no system font of a machine without CJK fonts has it (a system's
 * Latin font comes first in the stack and draws the rest).
 */
function loadSubsetCodePoints(): ReadonlySet<number> {
  const ranges = require('@fontsource/noto-sans-sc/unicode.json') as Record<string, string>;
  const points = new Set<number>();
  const western: [number, number][] = [];
  for (const [name, list] of Object.entries(ranges)) {
    if (/^\[\d+\]$/.test(name)) {
      for (const [from, to] of parseRanges(list)) for (let c = from; c <= to; c++) points.add(c);
    } else western.push(...parseRanges(list));
  }
  for (const [from, to] of western) for (let c = from; c <= to; c++) points.delete(c);
  return points;
}

let subsetCodePoints: ReadonlySet<number> | undefined;

/**
 * The page's characters for its subset, canonical (sorted by code point, each once), read from
 * its body (the head's title and description are drawn by the browser's own UI), or undefined
 * when it has none or more than `max`.
 */
export function pageSubsetChars(html: string, max = MAX_SUBSET_CHARS): string | undefined {
  subsetCodePoints ??= loadSubsetCodePoints();
  const body = html.indexOf('<body');
  const text = body < 0 ? html : html.slice(body);
  const found = new Set<number>();
  for (const char of text) {
    const c = char.codePointAt(0)!;
    if (c < 0x80 || found.has(c) || !subsetCodePoints.has(c)) continue;
    found.add(c);
    if (found.size > max) return undefined;
  }
  if (found.size === 0) return undefined;
  return String.fromCodePoint(...[...found].sort((a, b) => a - b));
}

/** The `unicode-range` of canonical characters, runs of consecutive code points as one range. */
export function unicodeRangeOf(chars: string): string {
  const points = [...chars].map((c) => c.codePointAt(0)!);
  const parts: string[] = [];
  for (let i = 0; i < points.length;) {
    let j = i;
    while (j + 1 < points.length && points[j + 1] === points[j]! + 1) j++;
    const from = points[i]!.toString(16);
    parts.push(j > i ? `U+${from}-${points[j]!.toString(16)}` : `U+${from}`);
    i = j + 1;
  }
  return parts.join(',');
}

/**
 * Cuts off the main thread, one at a time (page-font-cut-worker.ts). The thread goes when idle:
 * harfbuzz's memory (the face copied in, several tens of MB) is held only while pages are new.
 * From the built package the worker is plain JavaScript; from the TypeScript sources (tests,
 * tsx) the thread loads tsx first to run the .ts file.
 */
function cutPool(): Piscina {
  const fromSources = import.meta.url.endsWith('.ts');
  return new Piscina({
    filename: new URL(`./page-font-cut-worker.${fromSources ? 'ts' : 'js'}`, import.meta.url).href,
    minThreads: 0,
    maxThreads: 1,
    idleTimeout: 30_000,
    ...(fromSources ? { execArgv: ['--import', 'tsx'] } : {}),
  });
}

/** What names the face's content in the hash: the source face's and the cutter's versions. */
function faceVersion(): string {
  const face = require('@expo-google-fonts/noto-sans-sc/package.json') as { version: string };
  const cutter = require('subset-font/package.json') as { version: string };
  return `${face.version} ${cutter.version}`;
}

export interface PageFontSubsetOptions {
  /**
   * Cuts the face to the characters; default: Noto Sans SC as WOFF2 with subset-font, in a
   * worker thread.
   */
  cut?: (chars: string) => Promise<Buffer>;
  /** The characters a subset holds at most. */
  maxChars?: number;
  /** What the kept subsets weigh at most, in bytes. */
  maxBytes?: number;
  /** The hashes handed out that stay servable (each remembers its characters, not its bytes). */
  maxIssued?: number;
}

/** The face a page names: its URL and its exact characters. */
export interface PageSubset {
  hash: string;
  url: string;
  chars: string;
}

/**
 * The subsets of this process. A subset is cut once per character list, even when several
 * requests ask for it together (they share the cut in flight), and kept in a bounded Lru by its
 * characters. Its URL's hash is handed out only with a page this process rendered: a request
 * for a hash it did not hand out is a 404, so no URL makes the server cut a face of its choosing.
 * A hash whose bytes were evicted is cut again from the characters it was handed out for.
 */
export class PageFontSubsets {
  private readonly cut: (chars: string) => Promise<Buffer>;
  private pool: Piscina | undefined;
  private readonly maxChars: number;
  private readonly version = faceVersion();
  /** Characters -> the cut (a promise from its start, so concurrent askers share it). */
  private readonly subsets: Lru<string, { bytes: Promise<Buffer> }>;
  /** Hash -> the characters it was handed out for. */
  private readonly issued: Lru<string, string>;

  constructor(options: PageFontSubsetOptions = {}) {
    this.cut =
      options.cut ??
      (async (chars) => {
        this.pool ??= cutPool();
        return Buffer.from((await this.pool.run(chars)) as Uint8Array);
      });
    this.maxChars = options.maxChars ?? MAX_SUBSET_CHARS;
    this.subsets = new Lru({ maxWeight: options.maxBytes ?? 4 * 1024 * 1024 });
    this.issued = new Lru({ maxEntries: options.maxIssued ?? 4096 });
  }

  /** The subset for a page's HTML (its cut started), or undefined when it gets none. */
  forPage(html: string): PageSubset | undefined {
    const chars = pageSubsetChars(html, this.maxChars);
    if (chars === undefined) return undefined;
    const hash = createHash('sha256')
      .update(`${this.version}\n${chars}`)
      .digest('hex')
      .slice(0, 20);
    this.issued.set(hash, chars);
    // Started now, so it is under way (or done) when the page's preload asks for it.
    this.bytesOf(chars).catch(() => undefined);
    return { hash, chars, url: `${PAGE_FONT_BASE}/${hash}.woff2` };
  }

  /** The WOFF2 of a hash this process handed out, or undefined for any other. */
  fontFor(hash: string): Promise<Buffer> | undefined {
    const chars = this.issued.get(hash);
    return chars === undefined ? undefined : this.bytesOf(chars);
  }

  /** Stops the cutting thread (the app's close). */
  async close(): Promise<void> {
    const pool = this.pool;
    this.pool = undefined;
    await pool?.destroy();
  }

  /** Subsets kept (cut or being cut). */
  get size(): number {
    return this.subsets.size;
  }

  private bytesOf(chars: string): Promise<Buffer> {
    const kept = this.subsets.get(chars);
    if (kept) return kept.bytes;
    const cut = this.cut(chars);
    // Weighed by the characters until cut (about 200 bytes each), then by its bytes (a new
    // entry object: lru-cache reweighs an entry only when its value changes).
    this.subsets.set(chars, { bytes: cut }, chars.length * 200);
    cut.then(
      (bytes) => {
        if (this.subsets.peek(chars)?.bytes === cut)
          this.subsets.set(chars, { bytes: cut }, bytes.length);
      },
      // A failed cut is not kept: the next asker tries again.
      () => {
        if (this.subsets.peek(chars)?.bytes === cut) this.subsets.delete(chars);
      },
    );
    return cut;
  }
}

/**
 * The head markup naming a page's subset: its preload and its @font-face (the exact characters,
 * `font-display: block`: the text waits for the face, which the preload has on its way).
 */
export function pageSubsetHead(subset: PageSubset): string {
  const url = escapeHtml(subset.url);
  return (
    `<link rel="preload" href="${url}" as="font" type="font/woff2" crossorigin>` +
    `<style>@font-face{font-family:"${PAGE_FONT_FAMILY}";font-style:normal;font-weight:400;` +
    `font-display:block;src:url("${url}") format("woff2");` +
    `unicode-range:${unicodeRangeOf(subset.chars)}}</style>\n`
  );
}

/** Serves the subsets this process handed out (immutable: the hash names the content). */
export function registerPageFontSubsets(app: FastifyInstance, subsets: PageFontSubsets): void {
  app.get<{ Params: { file: string } }>(
    `${PAGE_FONT_BASE}/:file`,
    { schema: { hide: true } },
    async (request, reply) => {
      const hash = /^([0-9a-f]{20})\.woff2$/.exec(request.params.file)?.[1];
      const font = hash === undefined ? undefined : subsets.fontFor(hash);
      if (font === undefined) return reply.callNotFound();
      const bytes = await font;
      return reply
        .header('content-type', 'font/woff2')
        .header('cache-control', 'public, max-age=31536000, immutable')
        .header('access-control-allow-origin', '*')
        .send(bytes);
    },
  );
}
