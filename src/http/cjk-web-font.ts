import { createReadStream } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import { CJK_FONT_FAMILY, cjkFontFiles } from '../domain/circulation-images/cjk-font.js';

/** Where a server serves the regular and bold Noto Sans SC files. */
export interface CjkFontPaths {
  regular: string;
  bold: string;
}

const CJK_RANGE =
  'U+2E80-2FDF,U+3000-30FF,U+3100-31FF,U+3400-4DBF,U+4E00-9FFF,U+F900-FAFF,U+FE30-FE4F,U+FF00-FFEF';

/**
 * The @font-face rules of the product's Chinese font: readers' machines often have no CJK font
 * (servers, containers, minimal desktops draw boxes), so every HTML page the product serves (the
 * site's and the API's) names Noto Sans SC, served by the same server. `unicode-range` keeps
 * pages without Chinese from downloading it; a weight is fetched only when a page uses it.
 */
export function cjkFontFace(paths: CjkFontPaths): string {
  return (['regular', 'bold'] as const)
    .map(
      (w) =>
        `@font-face{font-family:"${CJK_FONT_FAMILY}";src:url("${paths[w]}") format("truetype");font-weight:${w === 'bold' ? 700 : 400};font-display:swap;unicode-range:${CJK_RANGE}}`,
    )
    .join('\n');
}

const gzipAsync = promisify(gzip);

/** Each file gzipped once per process (10.5 MB of TrueType is 6.3 MB gzipped), on first asking. */
const gzipped = new Map<string, Promise<Buffer>>();

function gzippedFile(file: string): Promise<Buffer> {
  let kept = gzipped.get(file);
  if (!kept) {
    kept = readFile(file).then((bytes) => gzipAsync(bytes, { level: 6 }));
    // A failure is not kept: the next request tries again (and is sent uncompressed meanwhile).
    kept.catch(() => gzipped.delete(file));
    gzipped.set(file, kept);
  }
  return kept;
}

/**
 * Serves the font files once per browser (immutable, a year of cache; the files never change),
 * gzipped to a browser that accepts it.
 */
export function registerCjkFonts(app: FastifyInstance, paths: CjkFontPaths): void {
  const files = cjkFontFiles();
  for (const w of ['regular', 'bold'] as const) {
    const file = files[w];
    app.get(paths[w], { schema: { hide: true } }, async (request, reply) => {
      reply
        .header('content-type', 'font/ttf')
        .header('cache-control', 'public, max-age=31536000, immutable')
        .header('access-control-allow-origin', '*')
        .header('vary', 'accept-encoding');
      if (/\bgzip\b/.test(String(request.headers['accept-encoding'] ?? ''))) {
        const body = await gzippedFile(file).catch(() => undefined);
        if (body)
          return reply
            .header('content-encoding', 'gzip')
            .header('content-length', String(body.length))
            .send(body);
      }
      const { size } = await stat(file);
      return reply.header('content-length', String(size)).send(createReadStream(file));
    });
  }
}
