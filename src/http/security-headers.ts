import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/** What a route may change about the headers (route option `config.securityHeaders`). */
export interface RouteSecurityHeaders {
  /**
   * The page is meant to be shown in other sites' frames (oEmbed's embed view): no
   * `frame-ancestors` and no `X-Frame-Options`.
   */
  frameable?: boolean;
}

/** One route of the app as registered (method(s), path, its config). */
export interface RegisteredRoute {
  methods: string[];
  url: string;
  frameable: boolean;
}

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * This response's CSP nonce, made the first time it is read: a page that must keep an inline
     * script writes `<script nonce="${request.cspNonce}">`, and the policy then allows it.
     */
    readonly cspNonce: string;
  }
  interface FastifyContextConfig {
    securityHeaders?: RouteSecurityHeaders;
  }
  interface FastifyInstance {
    /** Every route registered after the security headers (for the tests that walk them all). */
    readonly registeredRoutes: readonly RegisteredRoute[];
  }
}

/** The options of a frameable route: `app.get(path, FRAMEABLE_ROUTE, handler)`. */
export const FRAMEABLE_ROUTE = { config: { securityHeaders: { frameable: true } } } as const;

const NONCE = Symbol('cspNonce');

/**
 * The Content-Security-Policy of an HTML page.
 * - Scripts only from this origin, plus the one inline script a page asked a nonce for (the
 *   site's wpApiSettings): any other inline script, event
 *   handler attribute or javascript: URL an attacker got into the HTML does not run.
 * - `style-src 'unsafe-inline'`: block markup carries `style` attributes (colours, spacing,
 *   widths of columns and images) and the pages their own `<style>`; CSS cannot run script in
 *   current browsers, and a nonce would not cover attributes anyway. Styles and fonts otherwise
 *   come from this origin (the site serves its own CJK fonts and stylesheets).
 * - Images and media also from https: (authors link pictures on other hosts, as WordPress
 *   allows) and data: (Swagger UI's and Bull Board's icons).
 * - `object-src 'none'`, `base-uri 'self'`: no plugins, no rebasing of relative URLs.
 * - `frame-ancestors 'none'` unless the route is frameable: no clickjacking of the consent,
 *   sign-in and authorization pages.
 * No `form-action`: the OAuth consent and authorize-application forms end in a redirect to the
 * client's address, which Chromium checks against form-action too.
 */
export function contentSecurityPolicy(options: { nonce?: string; frameable?: boolean }): string {
  const script = options.nonce ? `'self' 'nonce-${options.nonce}'` : `'self'`;
  const directives = [
    `default-src 'self'`,
    `script-src ${script}`,
    `script-src-attr 'none'`,
    `style-src 'self' 'unsafe-inline'`,
    `img-src 'self' data: https:`,
    `media-src 'self' https:`,
    `font-src 'self' data:`,
    `connect-src 'self'`,
    `object-src 'none'`,
    `base-uri 'self'`,
  ];
  if (!options.frameable) directives.push(`frame-ancestors 'none'`);
  return directives.join('; ');
}

/**
 * The headers of an HTML page: nosniff, the Content-Security-Policy above (unless the reply
 * has its own) and `X-Frame-Options: DENY` unless frameable. For the hook below, and for a page
 * sent where no hook runs (a request Fastify refused before routing).
 */
export function setPageSecurityHeaders(
  reply: FastifyReply,
  options: { nonce?: string; frameable?: boolean } = {},
): void {
  reply.header('x-content-type-options', 'nosniff');
  if (!reply.hasHeader('content-security-policy')) {
    reply.header('content-security-policy', contentSecurityPolicy(options));
  }
  if (!options.frameable) reply.header('x-frame-options', 'DENY');
}

function isHtml(reply: FastifyReply): boolean {
  const type = reply.getHeader('content-type');
  return typeof type === 'string' && /^\s*text\/html/i.test(type);
}

/**
 * The headers every response of an app gets, attached once per app (call it first in the
 * factory, before any route, so that `registeredRoutes` sees them all):
 * - `X-Content-Type-Options: nosniff` on every response (no upload or JSON answer is ever read
 *   as HTML or script by a browser);
 * - on HTML pages, the Content-Security-Policy above and `X-Frame-Options: DENY` (for browsers
 *   without frame-ancestors), unless the route is frameable. A route that sets its own policy
 *   keeps it.
 */
export function registerSecurityHeaders(app: FastifyInstance): void {
  const routes: RegisteredRoute[] = [];
  app.decorate('registeredRoutes', {
    getter: () => routes,
  });
  app.decorateRequest('cspNonce', {
    getter(this: FastifyRequest & { [NONCE]?: string }) {
      this[NONCE] ??= randomBytes(18).toString('base64');
      return this[NONCE];
    },
  });
  app.addHook('onRoute', (route) => {
    routes.push({
      methods: [route.method].flat().map(String),
      url: route.url,
      frameable: route.config?.securityHeaders?.frameable === true,
    });
  });
  // A callback hook, not an async one: no promise per response.
  app.addHook('onSend', (request, reply, payload, done) => {
    if (isHtml(reply)) {
      const frameable = reply.routeOptions.config?.securityHeaders?.frameable === true;
      const nonce = (request as FastifyRequest & { [NONCE]?: string })[NONCE];
      setPageSecurityHeaders(reply, { nonce, frameable });
    } else {
      reply.header('x-content-type-options', 'nosniff');
    }
    done(null, payload);
  });
}
