import type { FastifyInstance } from 'fastify';
import { CJK_FONT_STACK, cjkWebFont, registerCjkWebFont } from '../../cjk-web-font.js';

/**
 * The site's Chinese font: the reader's own CJK font first, the served Noto Sans SC slices only
 * on a machine without one (see cjk-web-font.ts).
 */
export const THEME_WEB_FONT = cjkWebFont('/wp-content/fonts/noto-sans-sc');

/** The font-family of the theme's text. */
export const THEME_FONT_STACK = CJK_FONT_STACK;

/** Serves the face's stylesheet and slices (immutable, a year of cache). */
export function registerThemeFonts(app: FastifyInstance): void {
  registerCjkWebFont(app, THEME_WEB_FONT);
}
