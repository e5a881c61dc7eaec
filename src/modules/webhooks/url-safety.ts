// Where webhooks may go: https only, and never to an address of this machine, its networks or a
// cloud metadata service. Checked when an endpoint is created (every address its host resolves
// to) and again on each delivery, on the address the connection really uses (undici's
// `connect.lookup`, see sender.ts), so DNS that changes after the check cannot turn a webhook
// inward. WEBHOOK_ALLOW_PRIVATE=1 lifts both rules (development and tests).
//
// Hosts are resolved by c-ares (dns.Resolver: the servers of /etc/resolv.conf, asked on the event
// loop), not by getaddrinfo (dns.lookup): libuv runs at most two getaddrinfo calls at once, so a
// receiver whose DNS does not answer would hold every lookup of the process (other receivers', the
// database's, the fiscal provider's) for as long as the system resolver waits. /etc/hosts is not
// read; localhost and its subdomains are the loopback (RFC 6761).
import { Resolver } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';

const blocked = new BlockList();
const privateIPv4 = [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, including the 169.254.169.254 metadata service
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved and broadcast
] as const;
for (const [network, bits] of privateIPv4) {
  blocked.addSubnet(network, bits, 'ipv4');
  // 6to4 (RFC 3056): 2002:AABB:CCDD::/48 reaches the IPv4 address AA.BB.CC.DD through a relay.
  const [a, b, c, d] = network.split('.').map(Number);
  blocked.addSubnet(
    `2002:${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}::`,
    16 + bits,
    'ipv6',
  );
}
for (const [network, bits] of [
  ['::', 96], // unspecified, loopback and the deprecated IPv4-compatible ::a.b.c.d
  ['64:ff9b::', 96], // NAT64 of any IPv4 address
  ['64:ff9b:1::', 48], // NAT64 of a local-use prefix (RFC 8215)
  ['100::', 64], // discard-only
  ['2001::', 32], // Teredo: its IPv4 address is obscured
  ['2001:db8::', 32], // documentation
  ['fc00::', 7], // unique local, including AWS's fd00:ec2::254 metadata
  ['fe80::', 10],
  ['ff00::', 8],
] as const)
  blocked.addSubnet(network, bits, 'ipv6');

/** Whether a webhook may connect to `address` (an IPv4-mapped IPv6 address is judged as IPv4). */
export function isPublicAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return isPublicAddress(mapped[1]);
  const family = isIP(address);
  if (!family) return false;
  return !blocked.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

export class UnsafeUrlError extends Error {}

/** What resolves webhook hosts (a dns.Resolver; tests give one asking their own server). */
export type HostResolver = Pick<Resolver, 'resolve4' | 'resolve6'>;

/** A query gives up after about 2 s per try, 2 tries: an attempt's 10 s are not spent waiting on DNS. */
const webhookResolver = new Resolver({ timeout: 2_000, tries: 2 });

type Address = { address: string; family: 4 | 6 };

/** Every address of `host` (IPv4 first), or the resolver's error (ENOTFOUND, ETIMEOUT...). */
async function resolveHost(
  host: string,
  resolver: HostResolver = webhookResolver,
  family: 0 | 4 | 6 = 0,
): Promise<Address[]> {
  const literal = isIP(host);
  if (literal) return [{ address: host, family: literal as 4 | 6 }];
  if (/(^|\.)localhost\.?$/i.test(host))
    return [
      { address: '127.0.0.1', family: 4 },
      { address: '::1', family: 6 },
    ];
  const ask = (version: 4 | 6) =>
    new Promise<Address[]>((resolve, reject) => {
      const done = (err: NodeJS.ErrnoException | null, addresses: string[]) =>
        err ? reject(err) : resolve(addresses.map((address) => ({ address, family: version })));
      if (version === 4) resolver.resolve4(host, done);
      else resolver.resolve6(host, done);
    });
  const versions: (4 | 6)[] = family ? [family] : [4, 6];
  const answers = await Promise.allSettled(versions.map(ask));
  const found = answers.flatMap((answer) => (answer.status === 'fulfilled' ? answer.value : []));
  if (found.length) return found;
  const errors = answers.flatMap((answer) => (answer.status === 'rejected' ? [answer.reason] : []));
  // No record of one family says less than why the other failed.
  throw (
    errors.find((err) => err?.code !== 'ENODATA') ??
    errors[0] ??
    Object.assign(new Error(`${host} has no address`), { code: 'ENOTFOUND' })
  );
}

/** The URL when a webhook may be sent there; throws UnsafeUrlError saying why not. */
export async function checkWebhookUrl(
  text: string,
  allowPrivate: boolean,
  resolver: HostResolver = webhookResolver,
): Promise<URL> {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UnsafeUrlError('must be an absolute URL');
  }
  const protocols = allowPrivate ? ['https:', 'http:'] : ['https:'];
  if (!protocols.includes(url.protocol)) throw new UnsafeUrlError('must use https');
  if (url.username || url.password) throw new UnsafeUrlError('must not carry a user name or password');
  if (allowPrivate) return url;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: Address[];
  try {
    addresses = await resolveHost(host, resolver);
  } catch {
    throw new UnsafeUrlError(`host ${host} does not resolve`);
  }
  const inward = addresses.find((a) => !isPublicAddress(a.address));
  if (inward) throw new UnsafeUrlError(`host ${host} resolves to a private or reserved address`);
  return url;
}

/** A lookup for net.connect that resolves with `resolver` and keeps only public addresses: a connection to any other fails before it opens. */
export function publicOnlyLookup(resolver: HostResolver = webhookResolver): LookupFunction {
  return (hostname, options, callback) => {
    const family =
      options.family === 4 || options.family === 'IPv4'
        ? 4
        : options.family === 6 || options.family === 'IPv6'
          ? 6
          : 0;
    resolveHost(hostname, resolver, family).then(
      (found) => {
        const allowed = found.filter((a) => isPublicAddress(a.address));
        if (!allowed.length) {
          const refused = Object.assign(
            new Error(`${hostname} resolves only to private or reserved addresses`),
            { code: 'EWEBHOOKPRIVATE' },
          );
          return callback(refused, '', 0);
        }
        if (options.all) return (callback as unknown as (e: null, a: Address[]) => void)(null, allowed);
        callback(null, allowed[0].address, allowed[0].family);
      },
      (err: NodeJS.ErrnoException) => callback(err, '', 0),
    );
  };
}
