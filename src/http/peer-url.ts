import type { FastifyRequest } from 'fastify';
import type { Config } from '../shared/config/config.js';

/**
 * The address of the other server (the API seen from the documentation site, or the site seen
 * from the API's pages) for a link in a page. The configured public address when there is one
 * (PUBLIC_URL, SITE_URL); else the host this request came to (as a proxy in TRUSTED_PROXIES
 * forwarded it) with the other server's port: a newcomer who opened http://myhost:3000/login is
 * sent to http://myhost:3001/manual/, not to localhost. A Host that is not a plain host name or
 * address (anything a link could be bent with) falls back to localhost.
 */
const HOST_NAME =
  /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*|\[[0-9A-Fa-f:.]+\])$/;

function peerUrl(request: FastifyRequest, configured: string | undefined, port: number): string {
  if (configured) return configured.replace(/\/+$/, '');
  const host = HOST_NAME.test(request.hostname) ? request.hostname : 'localhost';
  const protocol = request.protocol === 'https' ? 'https' : 'http';
  return `${protocol}://${host}:${port}`;
}

/** The documentation site's address, for a link from one of the API's pages. */
export function siteUrlFor(
  request: FastifyRequest,
  config: Pick<Config, 'SITE_URL' | 'SITE_PORT'>,
): string {
  return peerUrl(request, config.SITE_URL, config.SITE_PORT);
}

/** The API's address, for a link from one of the documentation site's pages. */
export function apiUrlFor(
  request: FastifyRequest,
  config: Pick<Config, 'PUBLIC_URL' | 'publicUrlGiven' | 'PORT'>,
): string {
  return peerUrl(request, config.publicUrlGiven ? config.PUBLIC_URL : undefined, config.PORT);
}
