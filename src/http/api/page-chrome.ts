import type { FastifyInstance } from 'fastify';
import { CJK_FONT_STACK, cjkWebFont, registerCjkWebFont } from '../cjk-web-font.js';
import type { Config } from '../../shared/config/config.js';
import type { ApiApp } from '../app-context.js';
import { escapeHtml } from '../html/escape.js';
import { siteUrlFor } from '../peer-url.js';

/** The Chinese face the API serves its pages, for machines without a CJK font of their own. */
export const API_WEB_FONT = cjkWebFont('/assets/fonts/noto-sans-sc');

/** Pages with a look of their own: Bull Board and the OpenAPI viewer. */
const OWN_LOOK = /^\/(admin\/queues|docs)(\/|$|\?)/;

/**
 * What every HTML page of the API (sign-in, registration, account, OAuth consent, the admin's
 * client review) shares, added as they are sent: the systems' CJK fonts and, on machines without
 * one, Noto Sans SC served here (client names, scope descriptions, station names), and a footer
 * linking the documentation site's manual, OAuth guide and API reference.
 */
export function registerPageChrome(app: ApiApp, config: Config): void {
  registerCjkWebFont(app as unknown as FastifyInstance, API_WEB_FONT);
  const style =
    `<link rel="stylesheet" href="${API_WEB_FONT.stylesheetUrl}">` +
    `<style id="cjk-font">body{font-family:${CJK_FONT_STACK}}` +
    `.docs-links{max-width:60rem;margin:2rem auto;padding:0 1rem;font-size:.85rem;color:#5b616b;text-align:center}` +
    `.docs-links a{color:inherit}</style>`;
  // The site's address as this request sees it (peer-url.ts): per request, not fixed at start.
  const footer = (site: string) =>
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
      payload.includes('id="cjk-font"') ||
      // The web app's pages have their own frame and use the system's fonts (web/layout.ts).
      payload.includes('data-layout="web"')
    )
      return done(null, payload);
    const head = payload.search(/<\/head>/i);
    const body = payload.search(/<\/body>/i);
    if (head === -1 || body === -1) return done(null, payload);
    const out =
      payload.slice(0, head) +
      style +
      payload.slice(head, body) +
      footer(escapeHtml(siteUrlFor(request, config))) +
      payload.slice(body);
    reply.removeHeader('content-length');
    done(null, out);
  });
}
