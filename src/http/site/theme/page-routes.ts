import { apiUrlFor } from '../../peer-url.js';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { SESSION_COOKIE } from '../auth/site-authenticator.js';
import type { SiteKit } from '../site-kit.js';
import type { NavLink, ThemeContext, ThemeView } from './site-theme.js';

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
    const html = await this.kit.theme.render(view, await this.context(request));
    reply.header('link', `<${this.kit.urls.restRoot}>; rel="https://api.w.org/"`);
    reply.header('content-type', 'text/html; charset=UTF-8');
    return reply.code(status).send(html);
  }
}
