// A webhook receiver on 127.0.0.1 for tests: records every request and answers as `respond` says.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestContext } from 'node:test';

export type Received = { path: string; headers: Record<string, string>; body: string };

export type Receiver = {
  url: (path?: string) => string;
  received: Received[];
  respond: (req: IncomingMessage, res: ServerResponse) => void;
  close(): Promise<void>;
  /** Listens again on the same port (a receiver that was down comes back). */
  reopen(): Promise<void>;
};

/** A receiver on `port` (any free one by default), closed after the test `t`. */
export async function startReceiver(t: Pick<TestContext, 'after'>, port = 0): Promise<Receiver> {
  const receiver: Receiver = {
    url: (path = '/hook') => `http://127.0.0.1:${port}${path}`,
    received: [],
    respond: (_req, res) => res.writeHead(200).end('ok'),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
    reopen: () => new Promise<void>((resolve) => server.listen(port, '127.0.0.1', () => resolve())),
  };
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk);
    const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
    receiver.received.push({ path: req.url ?? '', headers, body: Buffer.concat(chunks).toString('utf8') });
    receiver.respond(req, res);
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', () => resolve()));
  port = (server.address() as AddressInfo).port;
  t.after(() => receiver.close());
  return receiver;
}
