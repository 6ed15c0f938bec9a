import { apiUrlFor } from '../../peer-url.js';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { SESSION_COOKIE } from '../auth/site-authenticator.js';
import type { SiteKit } from '../site-kit.js';
import { pageSubsetHead, type PageFontSubsets } from './page-font-subset.js';
import type { NavLink, ThemeContext, ThemeView } from './site-theme.js';
import { THEME_WEB_FONT } from './theme-fonts.js';

const SLICES_LINK = `<link rel="stylesheet" href="${THEME_WEB_FONT.stylesheetUrl}">`;

/**
 * The page with its own font subset named before the slices' stylesheet. Not for search results
 * or a missing page: their text comes from the URL, and no URL may choose what is cut.
 */
function withPageFont(html: string, view: ThemeView, subsets: PageFontSubsets): string {
  if (view.kind === 'search' || view.kind === 'not-found') return html;
  const at = html.indexOf(SLICES_LINK);
  if (at < 0) return html;
  const subset = subsets.forPage(html);
  return subset ? html.slice(0, at) + pageSubsetHead(subset) + html.slice(at) : html;
}

export type PageHandler = (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>;

/**
 * The HTML side of the site: builds a page's theme context (site facts, navigation, the signed-in
 * reader and their REST nonce) and sends a rendered view with the REST discovery Link header.
 * The content module sets the front page and the navigation.
 */
export class SitePages {
  /** The front page (`/` without rest_route); the content module sets it. */
  home: PageHandler = async (request, reply) =>
    this.send(request, reply, { kind: 'not-found', path: '/' }, 404);
  /** The navigation links; the content module sets it (menu items of the primary menu). */
  nav: () => Promise<NavLink[]> = async () => [];

  constructor(private readonly kit: SiteKit) {}

  async context(request: FastifyRequest): Promise<ThemeContext> {
    const { config, urls, auth } = this.kit;
    const session = await auth.session(request.cookies?.[SESSION_COOKIE]);
    return {
      siteName: config.SITE_NAME,
      siteDescription: config.SITE_DESCRIPTION,
      siteUrl: urls.site,
      restRoot: urls.restRoot,
      apiUrl: apiUrlFor(request, config),
      language: 'zh-CN',
      nav: await this.nav(),
      user: session?.user ?? null,
      nonce: session ? auth.nonces.create(session.user.id, session.sessionId) : undefined,
      // Read (made) only when the page will print wpApiSettings.
      cspNonce: session ? request.cspNonce : undefined,
    };
  }

  async send(
    request: FastifyRequest,
    reply: FastifyReply,
    view: ThemeView,
    status = 200,
  ): Promise<unknown> {
    const html = withPageFont(
      await this.kit.theme.render(view, await this.context(request)),
      view,
      this.kit.pageFonts,
    );
    reply.header('link', `<${this.kit.urls.restRoot}>; rel="https://api.w.org/"`);
    reply.header('content-type', 'text/html; charset=UTF-8');
    return reply.code(status).send(html);
  }
}
