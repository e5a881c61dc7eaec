import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { type AddressInfo, createServer, type Socket } from 'node:net';
import { test } from 'node:test';
import { createSender } from '../../../src/modules/webhooks/sender.ts';
import { startReceiver } from '../../support/receiver.ts';

/** A TCP server that accepts connections and never sends a byte: a TLS handshake to it never ends. */
async function startSilentServer() {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    url: `https://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

test('a hostile receiver costs one attempt', async (t) => {
  const receiver = await startReceiver(t);
  const sender = createSender({ allowPrivate: true, timeoutMs: 300 });
  t.after(() => sender.close());

  await t.test('a receiver that never answers ends the attempt at the time limit', async () => {
    receiver.respond = () => {};
    const outcome = await sender.send(receiver.url('/slow'), {}, '{}');
    assert.equal(outcome.ok, false);
    assert.equal(outcome.statusCode, null);
    assert.ok(outcome.durationMs >= 250, String(outcome.durationMs));
    assert.match(String(outcome.error), /timeout|abort/i);
  });

  await t.test('a huge answer is read to its first 1 KB only', async () => {
    let written = 0;
    receiver.respond = (_req, res) => {
      res.writeHead(200);
      const chunk = Buffer.alloc(64 * 1024, 'x');
      const pump = () => {
        while (written < 50 * 1024 * 1024) {
          written += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end();
      };
      res.on('error', () => {});
      pump();
    };
    const outcome = await sender.send(receiver.url('/huge'), {}, '{}');
    assert.equal(outcome.ok, true);
    assert.equal(outcome.body?.length, 1024);
    assert.ok(written < 50 * 1024 * 1024, 'the connection was dropped before the whole answer');
  });

  await t.test(
    'a 2xx whose body never ends is a success with its status and start, at the time limit',
    async () => {
      // The receiver accepted the event: its status says so, whatever its body does next.
      receiver.respond = (_req, res) => {
        res.writeHead(200);
        res.write('accepted');
      };
      const outcome = await sender.send(receiver.url('/unended'), {}, '{}');
      assert.equal(outcome.ok, true, JSON.stringify(outcome));
      assert.equal(outcome.statusCode, 200);
      assert.equal(outcome.body, 'accepted');
      assert.ok(outcome.durationMs < 2_000, String(outcome.durationMs));
    },
  );

  await t.test('a 5xx whose body is cut by a reset keeps its status: the receiver did answer', async () => {
    receiver.respond = (_req, res) => {
      res.writeHead(503, { 'content-length': '100' });
      res.write('busy', () => res.socket?.resetAndDestroy());
    };
    const outcome = await sender.send(receiver.url('/reset'), {}, '{}');
    assert.equal(outcome.ok, false);
    assert.equal(outcome.statusCode, 503, JSON.stringify(outcome));
    assert.equal(outcome.body, 'busy');
    assert.ok(outcome.error);
  });

  await t.test('a redirect is not followed and is a failed attempt', async () => {
    receiver.received.length = 0;
    receiver.respond = (req, res) => {
      if (req.url === '/redirect') res.writeHead(307, { location: receiver.url('/redirect') }).end();
      else res.writeHead(200).end();
    };
    const outcome = await sender.send(receiver.url('/redirect'), {}, '{}');
    assert.equal(outcome.ok, false);
    assert.equal(outcome.statusCode, 307);
    assert.deepEqual(
      receiver.received.map((r) => r.path),
      ['/redirect'],
    );
  });

  await t.test('a TLS handshake that never ends ends the attempt at the time limit', async () => {
    const silent = await startSilentServer();
    t.after(() => silent.close());
    const outcome = await sender.send(silent.url, {}, '{}');
    assert.equal(outcome.ok, false);
    assert.equal(outcome.statusCode, null);
    assert.ok(outcome.durationMs >= 250 && outcome.durationMs < 600, String(outcome.durationMs));
    assert.match(String(outcome.error), /took over 300 ms/);
  });

  await t.test('a TLS error is a failed attempt', async () => {
    const outcome = await sender.send(receiver.url('/plain').replace('http:', 'https:'), {}, '{}');
    assert.equal(outcome.ok, false);
    assert.ok(outcome.error);
  });
});

test('stopping ends the attempts in flight, and an ended attempt leaves nothing on the stop signal', async (t) => {
  const receiver = await startReceiver(t);
  const stop = new AbortController();
  const sender = createSender({ allowPrivate: true, timeoutMs: 10_000, stop: stop.signal });
  t.after(() => sender.close());

  receiver.respond = (_req, res) => res.writeHead(204).end();
  for (let i = 0; i < 5; i++) assert.equal((await sender.send(receiver.url('/ok'), {}, '{}')).ok, true);
  assert.equal(getEventListeners(stop.signal, 'abort').length, 0);

  receiver.respond = () => {};
  const pending = sender.send(receiver.url('/slow'), {}, '{}');
  setTimeout(() => stop.abort(), 100);
  const outcome = await pending;
  assert.equal(outcome.ok, false);
  assert.ok(outcome.durationMs < 5_000, String(outcome.durationMs));
  assert.match(String(outcome.error), /stopped/);
});

test('stopping ends an attempt whose TLS handshake never ends, and the sender closes at once', async (t) => {
  const silent = await startSilentServer();
  t.after(() => silent.close());
  const stop = new AbortController();
  const sender = createSender({ allowPrivate: true, timeoutMs: 10_000, stop: stop.signal });
  const started = performance.now();
  const pending = sender.send(silent.url, {}, '{}');
  setTimeout(() => stop.abort(), 100);
  const outcome = await pending;
  assert.equal(outcome.ok, false);
  assert.match(String(outcome.error), /stopped/);
  // An attempt begun once stopped ends at once too.
  assert.match(String((await sender.send(silent.url, {}, '{}')).error), /stopped/);
  // What the worker's stop() does next: the shutdown waits for it.
  await sender.close();
  assert.ok(performance.now() - started < 2_000, `${Math.round(performance.now() - started)} ms`);
});
