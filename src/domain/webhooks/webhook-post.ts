import { lookup } from 'node:dns/promises';
import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { isNonPublicAddress, pinnedLookup, type HostLookup } from '../oembed/address-guard.js';
import { WebhookError } from './webhook-error.js';
import { isLoopbackHost } from './webhook-url.js';

export interface WebhookPostOptions {
  /** WEBHOOK_ALLOW_LOOPBACK. */
  allowLoopback: boolean;
  /** Whole request, connection to end of answer (ms). */
  timeoutMs: number;
  /** Name resolution (default the system's); tests stand in a resolver. */
  lookupHost?: HostLookup;
}

/** What the receiver answered: its status, or why there was no answer. */
export type WebhookPostResult = { status: number } | { error: string };

/** How much of an answer is read (and thrown away) before the connection is dropped. */
const MAX_ANSWER_BYTES = 64 * 1024;

/**
 * POSTs one signed body. The host is resolved once and the connection pinned to that address,
 * which must be public (or the loopback, where allowed): the oEmbed proxy's guard, so a name
 * whose DNS an attacker controls cannot turn deliveries on the internal network. Redirects are
 * not followed (a 3xx is a failed attempt). Refusals by the guard throw WebhookError; anything
 * the network or the receiver does is a result.
 */
export async function postWebhook(
  url: string,
  headers: Record<string, string>,
  body: string | Buffer,
  options: WebhookPostOptions,
): Promise<WebhookPostResult> {
  const target = new URL(url);
  const pinned = pinnedLookup(await resolveTarget(target.hostname, options));
  const client = target.protocol === 'https:' ? https : http;
  return new Promise<WebhookPostResult>((resolve) => {
    let settled = false;
    const finish = (result: WebhookPostResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      req.destroy();
      resolve(result);
    };
    const deadline = setTimeout(
      () => finish({ error: `no answer within ${options.timeoutMs} ms` }),
      options.timeoutMs,
    );
    const payload = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
    const req = client.request(
      target,
      {
        method: 'POST',
        lookup: pinned,
        // A caller's content-type stands (Web Push sends octets through the same guard).
        headers: {
          'content-type': 'application/json',
          'user-agent': 'emutrack-webhooks/1',
          ...headers,
          'content-length': String(payload.length),
        },
      },
      (res) => {
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > MAX_ANSWER_BYTES) finish({ status: res.statusCode ?? 0 });
        });
        res.on('end', () => finish({ status: res.statusCode ?? 0 }));
        res.on('error', (err) => finish({ error: err.message }));
      },
    );
    req.on('error', (err) => finish({ error: err.message }));
    req.end(payload);
  });
}

/**
 * The address to connect to. A refusal tells the endpoint's owner only that the address is not
 * allowed, the same whether the name did not resolve or resolved inside the network: what an
 * internal name resolves to (or that it exists) is the network's, not the caller's. The refusal's
 * `detail` says which, for the server's log.
 */
async function resolveTarget(
  hostname: string,
  options: WebhookPostOptions,
): Promise<{ address: string; family: 4 | 6 }> {
  const bare = hostname.replace(/^\[|\]$/g, '');
  const refused = (detail: string, cause?: unknown) =>
    new WebhookError(
      'webhook_address_refused',
      `the address of the host ${bare} is not allowed`,
      'url',
      {
        cause,
        detail,
      },
    );
  let address = bare;
  let family = isIP(bare);
  if (family === 0) {
    const found = await (options.lookupHost ?? ((h: string) => lookup(h)))(bare).catch(
      (err: unknown) => {
        throw refused(`the host ${bare} cannot be resolved: ${(err as Error).message}`, err);
      },
    );
    address = found.address;
    family = found.family === 6 ? 6 : 4;
  }
  const loopback = isLoopbackHost(address);
  if (loopback ? !options.allowLoopback : isNonPublicAddress(address))
    throw refused(
      `the host ${bare} is, or resolves to, a private or loopback address (${address})`,
    );
  return { address, family: family as 4 | 6 };
}
