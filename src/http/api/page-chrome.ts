import type { FastifyInstance } from 'fastify';
import { cjkFontFace, registerCjkFonts } from '../cjk-web-font.js';
import { CJK_FONT_FAMILY } from '../../domain/circulation-images/cjk-font.js';
import type { Config } from '../../shared/config/config.js';
import type { ApiApp } from '../app-context.js';
import { escapeHtml } from '../html/escape.js';

/** Where the API serves the Chinese font its pages use. */
export const API_FONT_PATHS = {
  regular: '/assets/fonts/noto-sans-sc-400.ttf',
  bold: '/assets/fonts/noto-sans-sc-700.ttf',
} as const;

/** Pages with a look of their own: Bull Board and the OpenAPI viewer. */
const OWN_LOOK = /^\/(admin\/queues|docs)(\/|$|\?)/;

/** The documentation site's address, as the site itself computes it. */
export function docsSiteUrl(config: Config): string {
  return (config.SITE_URL ?? `http://localhost:${config.SITE_PORT}`).replace(/\/+$/, '');
}

/**
 * What every HTML page of the API (sign-in, registration, account, OAuth consent, the admin's
 * client review) shares, added as they are sent: Noto Sans SC, served here, for Chinese text on
 * machines without a CJK font (client names, scope descriptions, station names), and a footer
 * linking the documentation site's manual, OAuth guide and API reference.
 */
export function registerPageChrome(app: ApiApp, config: Config): void {
  registerCjkFonts(app as unknown as FastifyInstance, API_FONT_PATHS);
  const site = escapeHtml(docsSiteUrl(config));
  const style =
    `<style id="cjk-font">${cjkFontFace(API_FONT_PATHS)}\n` +
    `body{font-family:"${CJK_FONT_FAMILY}",system-ui,-apple-system,"Segoe UI",sans-serif}` +
    `.docs-links{max-width:60rem;margin:2rem auto;padding:0 1rem;font-size:.85rem;color:#5b616b;text-align:center}` +
    `.docs-links a{color:inherit}</style>`;
  const footer =
    `<footer class="docs-links">emutrack documentation: ` +
    `<a href="${site}/manual/">manual</a> · <a href="${site}/manual/oauth/">OAuth guide</a> · ` +
    `<a href="${site}/manual/accounts/">accounts and API keys</a> · ` +
    `<a href="${site}/api-reference/">API reference</a></footer>`;
  app.addHook('onSend', (request, reply, payload, done) => {
    const type = String(reply.getHeader('content-type') ?? '');
    if (
      typeof payload !== 'string' ||
      !type.startsWith('text/html') ||
      OWN_LOOK.test(request.url) ||
      payload.includes('id="cjk-font"')
    )
      return done(null, payload);
    const head = payload.search(/<\/head>/i);
    const body = payload.search(/<\/body>/i);
    if (head === -1 || body === -1) return done(null, payload);
    const out =
      payload.slice(0, head) + style + payload.slice(head, body) + footer + payload.slice(body);
    reply.removeHeader('content-length');
    done(null, out);
  });
}
