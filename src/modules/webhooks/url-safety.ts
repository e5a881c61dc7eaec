// Where webhooks may go: https only, and never to an address of this machine, its networks or a
// cloud metadata service. Checked when an endpoint is created (every address its host resolves
// to) and again on each delivery, on the address the connection really uses (undici's
// `connect.lookup`, see sender.ts), so DNS that changes after the check cannot turn a webhook
// inward. WEBHOOK_ALLOW_PRIVATE=1 lifts both rules (development and tests).
import { lookup } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';

const blocked = new BlockList();
for (const [network, bits] of [
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
] as const)
  blocked.addSubnet(network, bits, 'ipv4');
for (const [network, bits] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b::', 96], // NAT64 of any IPv4 address
  ['64:ff9b:1::', 48], // NAT64 of a local-use prefix (RFC 8215)
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

/** The URL when a webhook may be sent there; throws UnsafeUrlError saying why not. */
export async function checkWebhookUrl(text: string, allowPrivate: boolean): Promise<URL> {
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
  let addresses: { address: string }[];
  try {
    addresses = await new Promise((resolve, reject) =>
      lookup(host, { all: true }, (err, found) => (err ? reject(err) : resolve(found))),
    );
  } catch {
    throw new UnsafeUrlError(`host ${host} does not resolve`);
  }
  const inward = addresses.find((a) => !isPublicAddress(a.address));
  if (inward) throw new UnsafeUrlError(`host ${host} resolves to a private or reserved address`);
  return url;
}

/** dns.lookup keeping only public addresses: a connection to any other fails before it opens. */
export const publicOnlyLookup: LookupFunction = (hostname, options, callback) => {
  lookup(hostname, { ...options, all: true }, (err, found) => {
    if (err) return callback(err, '', 0);
    const allowed = found.filter((a) => isPublicAddress(a.address));
    if (!allowed.length) {
      const refused = Object.assign(new Error(`${hostname} resolves only to private or reserved addresses`), {
        code: 'EWEBHOOKPRIVATE',
      });
      return callback(refused, '', 0);
    }
    if (options.all) return (callback as unknown as (e: null, a: typeof allowed) => void)(null, allowed);
    callback(null, allowed[0].address, allowed[0].family);
  });
};
