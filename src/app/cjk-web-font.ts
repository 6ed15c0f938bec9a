import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { FastifyInstance } from 'fastify';
import { CJK_FONT_FAMILY, cjkFontFiles } from '../circulation-images/cjk-font.js';

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

/** Serves the font files once per browser (immutable, a year of cache; the files never change). */
export function registerCjkFonts(app: FastifyInstance, paths: CjkFontPaths): void {
  const files = cjkFontFiles();
  for (const w of ['regular', 'bold'] as const) {
    const file = files[w];
    app.get(paths[w], { schema: { hide: true } }, async (_request, reply) => {
      const { size } = await stat(file);
      return reply
        .header('content-type', 'font/ttf')
        .header('content-length', String(size))
        .header('cache-control', 'public, max-age=31536000, immutable')
        .header('access-control-allow-origin', '*')
        .send(createReadStream(file));
    });
  }
}
