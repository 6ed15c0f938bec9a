import type { FastifyInstance } from 'fastify';
import { cjkFontStack, cjkWebFont, registerCjkWebFont } from '../../cjk-web-font.js';
import {
  PAGE_FONT_FAMILY,
  registerPageFontSubsets,
  type PageFontSubsets,
} from './page-font-subset.js';

/**
 * The site's Chinese font: the reader's own CJK font first; on a machine without one, the page's
 * own subset (page-font-subset.ts), then the served Noto Sans SC slices (see cjk-web-font.ts).
 */
export const THEME_WEB_FONT = cjkWebFont('/wp-content/fonts/noto-sans-sc');

/** The font-family of the theme's text. */
export const THEME_FONT_STACK = cjkFontStack(PAGE_FONT_FAMILY);

/** Serves the face's stylesheet and slices, and the pages' subsets (immutable, a year of cache). */
export function registerThemeFonts(app: FastifyInstance, subsets: PageFontSubsets): void {
  registerCjkWebFont(app, THEME_WEB_FONT);
  registerPageFontSubsets(app, subsets);
  app.addHook('onClose', () => subsets.close());
}
