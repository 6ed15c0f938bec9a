import { lookup } from 'node:dns/promises';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { OembedError } from './oembed-error.js';

/**
 * IPv4 ranges not on the public internet: this network, private, CGNAT, loopback, link-local,
 * IETF protocol assignments, documentation, the 6to4 relay, benchmarking, multicast, reserved.
 */
const NON_PUBLIC_V4: readonly (readonly [string, number])[] = [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
];

/**
 * IPv6 ranges refused whatever they carry: unspecified, loopback and the rest of the deprecated
 * IPv4-compatible ::/96 (::7f00:1 is 127.0.0.1 to some stacks), the discard prefix, Teredo
 * (tunnels to an IPv4 address it obfuscates), documentation, local-use NAT64, unique-local,
 * link-local, the deprecated site-local, multicast.
 */
const NON_PUBLIC_V6: readonly (readonly [string, number])[] = [
  ['::', 96],
  ['100::', 64],
  ['2001::', 32],
  ['2001:db8::', 32],
  ['64:ff9b:1::', 48],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
];

/**
 * IPv6 forms that carry an IPv4 address in known bits, as (prefix, where the IPv4 address
 * starts): SIIT's IPv4-translated ::ffff:0:0:0/96, NAT64's well-known 64:ff9b::/96 and 6to4's
 * 2002::/16. Each is refused when the address it carries is; Node's BlockList already reads the
 * IPv4-mapped ::ffff:0:0/96 as the IPv4 address itself.
 */
const EMBEDDING_V4: readonly (readonly [prefix: number[], at: number])[] = [
  [[0, 0, 0, 0, 0xffff, 0], 96],
  [[0x64, 0xff9b, 0, 0, 0, 0], 96],
  [[0x2002], 16],
];

/** The IPv6 subnet of `prefix` carrying the IPv4 subnet `net`/`bits` at bit `at`. */
function embeddedSubnet(prefix: number[], at: number, net: string, bits: number): string {
  const [a, b, c, d] = net.split('.').map(Number) as [number, number, number, number];
  const groups = [...prefix, (a << 8) | b, (c << 8) | d];
  while (groups.length < 8) groups.push(0);
  return `${groups.map((g) => g.toString(16)).join(':')}/${at + bits}`;
}

const NON_PUBLIC = new BlockList();
for (const [net, bits] of NON_PUBLIC_V4) {
  NON_PUBLIC.addSubnet(net, bits, 'ipv4');
  for (const [prefix, at] of EMBEDDING_V4) {
    const [address, length] = embeddedSubnet(prefix, at, net, bits).split('/');
    NON_PUBLIC.addSubnet(address!, Number(length), 'ipv6');
  }
}
for (const [net, bits] of NON_PUBLIC_V6) NON_PUBLIC.addSubnet(net, bits, 'ipv6');

/**
 * Whether an IP address is loopback, private or otherwise not on the public internet, in any
 * of its written forms (IPv4-mapped, -compatible or -translated, 6to4, NAT64, Teredo).
 */
export function isNonPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return true;
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
