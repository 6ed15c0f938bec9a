import { isIP } from 'node:net';

/** Longest redirect URI accepted at registration. */
export const REDIRECT_URI_MAX_LENGTH = 2000;
/** Most redirect URIs one client may register. */
export const MAX_REDIRECT_URIS = 10;

/** Whether a URL's host is the loopback interface (RFC 8252 7.3; `localhost` per RFC 8252 8.3 is allowed too). */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '');
  if (host === 'localhost') return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  if (isIP(host) === 6) return host === '::1';
  return false;
}

/**
 * Why a redirect URI cannot be registered, or undefined when it can. RFC 6749 3.1.2: absolute,
 * no fragment; RFC 9700 2.1 / 4.1.1: https, or plain http only on the loopback interface
 * (native apps, RFC 8252 7.3). User information in the URI (`user@host`) is refused too: it
 * only serves to make an address look like another one.
 */
export function redirectUriProblem(uri: string): string | undefined {
  if (uri.length === 0) return 'is empty';
  if (uri.length > REDIRECT_URI_MAX_LENGTH)
    return `longer than ${REDIRECT_URI_MAX_LENGTH} characters`;
  // eslint-disable-next-line no-control-regex -- control characters are what is looked for
  if (/[\s\u0000-\u001f\u007f]/.test(uri)) return 'contains white space or control characters';
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return 'is not an absolute URI';
  }
  if (uri.includes('#')) return 'may not contain a fragment (#)';
  if (url.username !== '' || url.password !== '') return 'may not contain user information';
  if (url.protocol === 'https:') return url.hostname === '' ? 'has no host' : undefined;
  if (url.protocol === 'http:') {
    return isLoopbackHost(url.hostname)
      ? undefined
      : 'must use https (plain http only on a loopback host: localhost, 127.0.0.1, [::1])';
  }
  return 'must be an https URI (or http on a loopback host)';
}
