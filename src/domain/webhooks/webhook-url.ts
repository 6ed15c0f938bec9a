import { isIP } from 'node:net';
import { isNonPublicAddress } from '../oembed/address-guard.js';
import { WebhookError } from './webhook-error.js';

/** Longest endpoint URL accepted. */
export const MAX_WEBHOOK_URL_LENGTH = 2_000;

/** Whether a host (name or literal address, IPv6 in brackets or not) is the loopback. */
export function isLoopbackHost(hostname: string): boolean {
  const bare = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (bare === 'localhost') return true;
  if (isIP(bare) === 0) return false;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(bare);
  const address = mapped ? mapped[1]! : bare;
  return address === '::1' || address.startsWith('127.');
}

/**
 * Checks an endpoint URL when it is registered: https, or http on the loopback where
 * `allowLoopback` (WEBHOOK_ALLOW_LOOPBACK, for development and tests); no user or password in
 * it; a literal address must be public (or the loopback, where allowed). A name is resolved only
 * when delivering, and its address checked then, every time (names can change).
 */
export function checkWebhookUrl(text: string, allowLoopback: boolean): URL {
  if (text.length > MAX_WEBHOOK_URL_LENGTH)
    throw new WebhookError(
      'webhook_invalid_url',
      `url is longer than ${MAX_WEBHOOK_URL_LENGTH} characters`,
      'url',
    );
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new WebhookError('webhook_invalid_url', 'url is not an absolute URL', 'url');
  }
  if (url.username || url.password)
    throw new WebhookError('webhook_invalid_url', 'url must not carry a user or password', 'url');
  const loopback = isLoopbackHost(url.hostname);
  if (loopback && !allowLoopback)
    throw new WebhookError(
      'webhook_address_refused',
      'url points at the loopback; deliveries go to public addresses only (WEBHOOK_ALLOW_LOOPBACK=true allows it for development)',
      'url',
    );
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback))
    throw new WebhookError(
      'webhook_invalid_url',
      'url must be https (http only on the loopback, for development)',
      'url',
    );
  const bare = url.hostname.replace(/^\[|\]$/g, '');
  if (!loopback && isIP(bare) !== 0 && isNonPublicAddress(bare))
    throw new WebhookError(
      'webhook_address_refused',
      `url points at ${bare}, a private or reserved address; deliveries go to public addresses only`,
      'url',
    );
  return url;
}
