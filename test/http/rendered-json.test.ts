// sendRenderedJson frees a body once its response is written. Freed too early, the part of a
// large answer still waiting for a slow reader would be read from memory that a later answer
// reuses: one client would receive another's bytes. These tests hold a client back while others
// are served, over real sockets.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { connect } from 'node:net';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import Fastify from 'fastify';
import { sendRenderedJson } from '../../src/http/json-reply.ts';

// Larger than loopback's socket buffers, so a reader that waits leaves most of it in the server.
const SIZE = 24 * 1024 * 1024;

const freed = (body: Buffer) => (body.buffer as ArrayBuffer).detached;

/** A JSON string of SIZE bytes: the letter names the request. */
const rendered = (letter: string) => {
  const body = Buffer.allocUnsafe(SIZE).fill(letter);
  body[0] = 0x22;
  body[SIZE - 1] = 0x22;
  return body;
};

async function server() {
  const app = Fastify();
  const sent: Buffer[] = [];
  app.get<{ Params: { letter: string } }>('/body/:letter', async (request, reply) => {
    const body = rendered(request.params.letter);
    sent.push(body);
    return sendRenderedJson(reply, body);
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.server.address() as { port: number };
  return { app, port, sent };
}

/** A request whose answer is read only when `read()` is called. */
async function heldBack(port: number, letter: string) {
  const socket = connect(port, '127.0.0.1');
  await once(socket, 'connect');
  socket.pause();
  socket.write(`GET /body/${letter} HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n`);
  return {
    async read(): Promise<Buffer> {
      const chunks: Buffer[] = [];
      socket.on('data', (chunk) => chunks.push(chunk));
      socket.resume();
      await once(socket, 'end');
      const whole = Buffer.concat(chunks);
      return whole.subarray(whole.indexOf('\r\n\r\n') + 4);
    },
  };
}

test('an answer waiting for a slow reader keeps its own bytes while others are served and freed', async (t) => {
  const { app, port, sent } = await server();
  t.after(() => app.close());
  const slow = await heldBack(port, 'a');
  while (sent.length < 1) await sleep(5);
  await sleep(50);
  for (const letter of 'bcd') {
    const response = await fetch(`http://127.0.0.1:${port}/body/${letter}`);
    const bytes = Buffer.from(await response.arrayBuffer());
    assert.equal(bytes.length, SIZE);
    assert.equal(bytes.indexOf(letter === 'b' ? 'a' : 'b'), -1);
  }
  assert.equal(freed(sent[0]), false, 'the slow answer is still being written');
  const body = await slow.read();
  assert.equal(body.length, SIZE);
  assert.equal(
    body.subarray(1, -1).every((byte) => byte === 0x61),
    true,
    'the slow reader got its own bytes',
  );
  for (let tries = 0; tries < 100 && !sent.every(freed); tries++) await sleep(10);
  assert.deepEqual(sent.map(freed), [true, true, true, true], 'each body freed once written');
});

test('a response cut short leaves its body to the collector and the server serving', async (t) => {
  const { app, port, sent } = await server();
  t.after(() => app.close());
  const socket = connect(port, '127.0.0.1');
  await once(socket, 'connect');
  socket.write('GET /body/e HTTP/1.1\r\nhost: x\r\n\r\n');
  await once(socket, 'data');
  socket.destroy();
  await sleep(50);
  const response = await fetch(`http://127.0.0.1:${port}/body/f`);
  assert.equal((await response.arrayBuffer()).byteLength, SIZE);
  assert.equal(sent.length, 2);
});
