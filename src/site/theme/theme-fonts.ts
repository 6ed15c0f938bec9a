import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { FastifyInstance } from 'fastify';
import { CJK_FONT_FAMILY, cjkFontFiles } from '../../circulation-images/cjk-font.js';

/** Where the theme's Chinese fonts are served (the product's Noto Sans SC, from npm). */
export const CJK_FONT_PATHS = {
  regular: '/wp-content/fonts/noto-sans-sc-400.ttf',
  bold: '/wp-content/fonts/noto-sans-sc-700.ttf',
} as const;

const CJK_RANGE =
  'U+2E80-2FDF,U+3000-30FF,U+3100-31FF,U+3400-4DBF,U+4E00-9FFF,U+F900-FAFF,U+FE30-FE4F,U+FF00-FFEF';

/**
 * The @font-face of the theme: readers' machines often have no CJK font (servers, containers,
 * minimal desktops draw boxes), so the site serves Noto Sans SC itself. `unicode-range` keeps
 * pages without Chinese from downloading them; a weight is fetched only when a page uses it.
 */
export const CJK_FONT_FACE = (['regular', 'bold'] as const)
  .map(
    (w) =>
      `@font-face{font-family:"${CJK_FONT_FAMILY}";src:url("${CJK_FONT_PATHS[w]}") format("truetype");font-weight:${w === 'bold' ? 700 : 400};font-display:swap;unicode-range:${CJK_RANGE}}`,
  )
  .join('\n');

/** Serves the font files once per browser (immutable, a year of cache). */
export function registerThemeFonts(app: FastifyInstance): void {
  const files = cjkFontFiles();
  for (const w of ['regular', 'bold'] as const) serveFont(app, CJK_FONT_PATHS[w], files[w]);
}

function serveFont(app: FastifyInstance, path: string, file: string): void {
  app.get(path, async (_request, reply) => {
    const { size } = await stat(file);
    return reply
      .header('content-type', 'font/ttf')
      .header('content-length', String(size))
      .header('cache-control', 'public, max-age=31536000, immutable')
      .header('access-control-allow-origin', '*')
      .send(createReadStream(file));
  });
}
