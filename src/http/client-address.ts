// The address a per-address limit counts (the token endpoint's, the console sign-in's). An IPv6
// host is given a whole /64 and picks any of its 2^64 addresses at will, so an IPv6 client is
// counted by its /64; an IPv4-mapped IPv6 address (::ffff:192.0.2.1, a dual-stack listener's view
// of an IPv4 client) is its IPv4 address.
import ipaddr from 'ipaddr.js';

export function limitAddress(ip: string): string {
  if (!ipaddr.isValid(ip)) return ip;
  const parsed = ipaddr.process(ip);
  if (parsed.kind() === 'ipv4') return parsed.toString();
  return `${parsed.toNormalizedString().split(':').slice(0, 4).join(':')}::/64`;
}
