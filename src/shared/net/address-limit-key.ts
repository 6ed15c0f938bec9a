import ipaddr from 'ipaddr.js';

/**
 * The part of a client address that a per-address limit counts: an IPv4 address whole, an IPv6
 * address by its /64 network. One IPv6 subscriber is routinely given a whole /64 (RFC 6177 and
 * the usual ISP practice), so a limit keyed by the full address is one that a single machine
 * resets at will by picking a new interface identifier. IPv4-mapped addresses count as the IPv4
 * address they carry. Anything that does not parse is its own key (it cannot be spread anyway).
 */
export function addressLimitKey(address: string): string {
  if (!address.includes(':')) return address;
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  const zoneless = bare.split('%', 1)[0]!;
  if (!ipaddr.IPv6.isValid(zoneless)) return address;
  const parsed = ipaddr.IPv6.parse(zoneless);
  if (parsed.isIPv4MappedAddress()) return parsed.toIPv4Address().toString();
  const [a, b, c, d] = parsed.parts;
  return `${[a, b, c, d].map((p) => p!.toString(16)).join(':')}::/64`;
}
