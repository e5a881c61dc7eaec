// The app on a real port (some limits live in Node's HTTP parser, which inject() skips), and a
// raw socket client that sends exactly the bytes a test gives it, as slowly as it likes.
import { connect } from 'node:net';
import { buildApp } from '../../src/app.ts';
import type { AppContext } from '../../src/context.ts';
import type { ConnectionLimits } from '../../src/http/connection-limits.ts';
import { testConfig } from '../support/app.ts';
import { createTestDatabase } from '../support/database.ts';

export async function listeningApp(
  t: { after(fn: () => unknown): void },
  connectionLimits: Partial<ConnectionLimits> = {},
) {
  const database = await createTestDatabase();
  const config = testConfig();
  const ctx: AppContext = {
    config,
    database,
    db: database.db,
    secrets: { sessionSecret: config.restaurantSessionSecret!, fiscalTokenKey: config.fiscalTokenKey! },
  };
  const app = await buildApp(ctx, { connectionLimits });
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  t.after(async () => {
    await app.close();
    await database.close();
  });
  return { app, address, port: Number(new URL(address).port) };
}

export type RawAnswer = { text: string; status: number; closedAfterMs: number };

/**
 * Writes `parts` one after another, `gapMs` apart, and resolves with everything the server
 * sent once it closes the socket (or `giveUpMs` passed).
 */
export function rawExchange(
  port: number,
  parts: (string | Buffer)[],
  gapMs = 0,
  giveUpMs = 10_000,
): Promise<RawAnswer> {
  return new Promise((resolve) => {
    const started = Date.now();
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    let timer: NodeJS.Timeout | undefined;
    const finish = () => {
      clearTimeout(timer);
      clearTimeout(giveUp);
      const text = Buffer.concat(chunks).toString('utf8');
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);
      resolve({ text, status, closedAfterMs: Date.now() - started });
      socket.destroy();
    };
    const giveUp = setTimeout(finish, giveUpMs);
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('close', finish);
    socket.on('error', () => {});
    let next = 0;
    const write = () => {
      if (socket.destroyed || next >= parts.length) return;
      socket.write(parts[next++]);
      timer = setTimeout(write, gapMs);
    };
    socket.on('connect', write);
  });
}

/** The JSON body of a raw HTTP/1.1 answer (content-length framed). */
export function rawBody(answer: RawAnswer): any {
  return JSON.parse(answer.text.slice(answer.text.indexOf('\r\n\r\n') + 4));
}

export function rawHeader(answer: RawAnswer, name: string): string | undefined {
  const head = answer.text.slice(0, answer.text.indexOf('\r\n\r\n'));
  const line = head.split('\r\n').find((l) => l.toLowerCase().startsWith(`${name.toLowerCase()}:`));
  return line?.slice(name.length + 1).trim();
}
