// A DNS server on 127.0.0.1 for tests (UDP, A and AAAA only): answers the names it is given, says
// NXDOMAIN for the others, and never answers the names in `silent`.
import { createSocket } from 'node:dgram';
import { isIPv4 } from 'node:net';

type DnsServer = { server: string; close(): Promise<void> };

/** The question's name, its type, and where the question ends. */
function question(message: Buffer): { name: string; type: number; end: number } {
  const labels: string[] = [];
  let at = 12;
  while (message[at] !== 0) {
    labels.push(message.subarray(at + 1, at + 1 + message[at]).toString('latin1'));
    at += 1 + message[at];
  }
  return { name: labels.join('.').toLowerCase(), type: message.readUInt16BE(at + 1), end: at + 5 };
}

function ipv6Bytes(address: string): Buffer {
  const [head, tail = ''] = address.split('::');
  const parts = (text: string) => (text ? text.split(':') : []);
  const groups = [
    ...parts(head),
    ...Array(8 - parts(head).length - parts(tail).length).fill('0'),
    ...parts(tail),
  ];
  return Buffer.from(groups.flatMap((group) => [parseInt(group, 16) >> 8, parseInt(group, 16) & 255]));
}

export async function startDnsServer(
  names: Record<string, string[]>,
  silent: string[] = [],
): Promise<DnsServer> {
  const socket = createSocket('udp4');
  socket.on('message', (message, peer) => {
    const { name, type, end } = question(message);
    if (silent.includes(name)) return;
    const addresses = (names[name] ?? []).filter((a) => (type === 1 ? isIPv4(a) : type === 28 && !isIPv4(a)));
    const header = Buffer.alloc(12);
    message.copy(header, 0, 0, 2);
    header.writeUInt16BE(0x8180 | (name in names ? 0 : 3), 2);
    header.writeUInt16BE(1, 4);
    header.writeUInt16BE(addresses.length, 6);
    const answers = addresses.map((address) => {
      const data = type === 1 ? Buffer.from(address.split('.').map(Number)) : ipv6Bytes(address);
      const record = Buffer.alloc(12);
      record.writeUInt16BE(0xc00c, 0);
      record.writeUInt16BE(type, 2);
      record.writeUInt16BE(1, 4);
      record.writeUInt32BE(60, 6);
      record.writeUInt16BE(data.length, 10);
      return Buffer.concat([record, data]);
    });
    socket.send(Buffer.concat([header, message.subarray(12, end), ...answers]), peer.port, peer.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return {
    server: `127.0.0.1:${socket.address().port}`,
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}
