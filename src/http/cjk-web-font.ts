import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { promisify } from 'node:util';
import { brotliCompress, constants as zlib, gzip } from 'node:zlib';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/**
 * The Chinese text of the documentation site's HTML pages is drawn in the
 * reader's own CJK font: every phone and desktop system has one, named in CJK_FONT_STACK. Only a
 * machine without any (a minimal Linux, a container's browser) falls through to the served face:
 * Noto Sans SC from @fontsource/noto-sans-sc, cut by Google Fonts into about a hundred WOFF2
 * slices of a few tens of KB, each with its `unicode-range`, so a browser that needs it fetches
 * only the slices holding the characters on the page (a page of the site: a few hundred KB,
 * where the whole TrueType face was 10.5 MB). One weight: headings are bolded by the browser.
 */

/** The served face's family: its own name, so an installed Noto Sans SC is not shadowed by it. */
export const CJK_WEB_FONT_FAMILY = 'Noto Sans SC Web';

/**
 * The pages' font-family: the system's UI font for Latin text, then the systems' CJK fonts
 * (macOS/iOS, Windows, Linux and Android), then the served face, then the generic family.
 */
export const CJK_FONT_STACK = cjkFontStack();

/**
 * The stack with `served` families (a page's own faces) tried before the served slices, after
 * the systems' fonts.
 */
export function cjkFontStack(...served: string[]): string {
  return (
    'system-ui,-apple-system,"Segoe UI","PingFang SC","Hiragino Sans GB","Microsoft YaHei",' +
    '"Noto Sans CJK SC","Source Han Sans SC","Noto Sans SC",' +
    [...served, CJK_WEB_FONT_FAMILY].map((f) => `"${f}"`).join(',') +
    ',sans-serif'
  );
}

const PACKAGE = '@fontsource/noto-sans-sc';
const require = createRequire(import.meta.url);

/** The face's stylesheet and its files, for a server that serves them under one base path. */
export interface CjkWebFont {
  /** The stylesheet of the face's @font-face rules (its `ver` names its content): link it. */
  stylesheetUrl: string;
  base: string;
  css: string;
  /** Slice number -> its WOFF2 file. */
  files: ReadonlyMap<string, string>;
}

/**
 * The face as served under `base` (`${base}.css`, `${base}/{slice}.woff2`): the package's
 * numbered slices, the Chinese ones (its Latin, Cyrillic and Vietnamese ones every system has).
 */
export function cjkWebFont(base: string): CjkWebFont {
  const ranges = require(`${PACKAGE}/unicode.json`) as Record<string, string>;
  const { version: packageVersion } = require(`${PACKAGE}/package.json`) as { version: string };
  const numbered = Object.entries(ranges)
    .filter(([name]) => /^\[\d+\]$/.test(name))
    .map(([name, range]) => [name.slice(1, -1), range] as const);
  const version = createHash('sha256')
    .update(`${packageVersion} ${JSON.stringify(numbered)}`)
    .digest('hex')
    .slice(0, 12);
  const files = new Map<string, string>();
  const rules = numbered.map(([n, range]) => {
    files.set(n, require.resolve(`${PACKAGE}/files/noto-sans-sc-${n}-400-normal.woff2`));
    return (
      `@font-face{font-family:"${CJK_WEB_FONT_FAMILY}";font-style:normal;font-weight:400;` +
      `font-display:swap;src:url("${base}/${n}.woff2?ver=${version}") format("woff2");` +
      `unicode-range:${range}}`
    );
  });
  return { stylesheetUrl: `${base}.css?ver=${version}`, base, css: rules.join('\n'), files };
}

const YEAR = 'public, max-age=31536000, immutable';
const gzipAsync = promisify(gzip);
const brotliAsync = promisify(brotliCompress);

/** The stylesheet compressed once, on first asking (90 KB of ranges: 17 KB as brotli). */
function compressedOnce(text: string): () => Promise<{ br: Buffer; gzip: Buffer }> {
  let kept: Promise<{ br: Buffer; gzip: Buffer }> | undefined;
  return () => {
    kept ??= Promise.all([
      brotliAsync(text, { params: { [zlib.BROTLI_PARAM_QUALITY]: 9 } }),
      gzipAsync(text, { level: 9 }),
    ]).then(([br, gz]) => ({ br, gzip: gz }));
    // A failure is not kept: the next request tries again (sent uncompressed meanwhile).
    kept.catch(() => (kept = undefined));
    return kept;
  };
}

async function sendStylesheet(
  request: FastifyRequest,
  reply: FastifyReply,
  css: string,
  compressed: () => Promise<{ br: Buffer; gzip: Buffer }>,
): Promise<FastifyReply> {
  reply
    .header('content-type', 'text/css; charset=UTF-8')
    .header('cache-control', YEAR)
    .header('vary', 'accept-encoding');
  const accepts = String(request.headers['accept-encoding'] ?? '');
  const encoding = /\bbr\b/.test(accepts) ? 'br' : /\bgzip\b/.test(accepts) ? 'gzip' : undefined;
  if (encoding) {
    const bodies = await compressed().catch(() => undefined);
    if (bodies) return reply.header('content-encoding', encoding).send(bodies[encoding]);
  }
  return reply.send(css);
}

/**
 * Serves the stylesheet and the slices under the font's base (a year of cache: a new package version is
 * a new `ver`). Only the package's own slice files are reachable: a name is looked up, never
 * joined into a path.
 */
export function registerCjkWebFont(app: FastifyInstance, font: CjkWebFont): void {
  const { base } = font;
  const compressed = compressedOnce(font.css);
  app.get(`${base}.css`, { schema: { hide: true } }, (request, reply) =>
    sendStylesheet(request, reply, font.css, compressed),
  );
  app.get<{ Params: { file: string } }>(
    `${base}/:file`,
    { schema: { hide: true } },
    async (request, reply) => {
      const file = /^(\d{1,3})\.woff2$/.exec(request.params.file)?.[1];
      const path = file === undefined ? undefined : font.files.get(file);
      if (path === undefined) return reply.callNotFound();
      const { size } = await stat(path);
      return reply
        .header('content-type', 'font/woff2')
        .header('cache-control', YEAR)
        .header('access-control-allow-origin', '*')
        .header('content-length', String(size))
        .send(createReadStream(path));
    },
  );
}
