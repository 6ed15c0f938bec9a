import { lookup } from 'node:dns/promises';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { OembedError } from './oembed-error.js';

/** Loopback, private, link-local, unique-local, CGNAT, unspecified and multicast ranges. */
const NON_PUBLIC = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  NON_PUBLIC.addSubnet(net, bits, 'ipv4');
}
for (const [net, bits] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b::', 96],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  NON_PUBLIC.addSubnet(net, bits, 'ipv6');
}

/** Whether an IP address is loopback, private or otherwise not on the public internet. */
export function isNonPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return true;
  // An IPv4-mapped IPv6 address is the IPv4 address it carries.
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return isNonPublicAddress(mapped[1]!);
  return NON_PUBLIC.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

export interface ResolvedTarget {
  address: string;
  family: 4 | 6;
}

/**
 * The address to connect to for a listed endpoint's host. Names are resolved once and the
 * connection is pinned to that address (no second lookup an attacker's DNS could change). A
 * non-public address is refused unless the list names it literally (an IP address, or
 * `localhost` for loopback): listing a public name does not open the internal network.
 */
export type HostLookup = (hostname: string) => Promise<{ address: string; family: number }>;

export async function resolveAllowedTarget(
  hostname: string,
  lookupHost: HostLookup = (h) => lookup(h),
): Promise<ResolvedTarget> {
  const bare = hostname.replace(/^\[|\]$/g, '');
  const literal = isIP(bare);
  if (literal !== 0) return { address: bare, family: literal as 4 | 6 };
  let resolved: { address: string; family: number };
  try {
    resolved = await lookupHost(bare);
  } catch (err) {
    throw new OembedError(
      'oembed_invalid_url',
      404,
      `the provider's host ${bare} cannot be resolved`,
      {
        cause: err,
      },
    );
  }
  const isLocalhost = bare.toLowerCase() === 'localhost';
  const loopback = resolved.address === '::1' || resolved.address.startsWith('127.');
  if (isNonPublicAddress(resolved.address) && !(isLocalhost && loopback)) {
    throw new OembedError(
      'oembed_address_refused',
      403,
      `the provider's host ${bare} resolves to a private or loopback address; list the address itself to allow it`,
    );
  }
  return { address: resolved.address, family: resolved.family === 6 ? 6 : 4 };
}

/**
 * A socket's lookup that answers every name with the one address already resolved and checked,
 * so the connection goes where the guard allowed (no second lookup an attacker's DNS could change).
 */
export function pinnedLookup({ address, family }: ResolvedTarget): LookupFunction {
  return (_host, opts, callback) => {
    if ((opts as { all?: boolean }).all) {
      (callback as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [
        { address, family },
      ]);
    } else callback(null, address, family);
  };
}
