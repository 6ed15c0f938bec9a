import type { FastifyInstance } from 'fastify';
import { cjkFontFace, registerCjkFonts } from '../../cjk-web-font.js';

/** Where the theme's Chinese fonts are served (the product's Noto Sans SC, from npm). */
export const CJK_FONT_PATHS = {
  regular: '/wp-content/fonts/noto-sans-sc-400.ttf',
  bold: '/wp-content/fonts/noto-sans-sc-700.ttf',
} as const;

/** The @font-face of the theme (see cjkFontFace). */
export const CJK_FONT_FACE = cjkFontFace(CJK_FONT_PATHS);

/** Serves the font files once per browser (immutable, a year of cache). */
export function registerThemeFonts(app: FastifyInstance): void {
  registerCjkFonts(app, CJK_FONT_PATHS);
}
