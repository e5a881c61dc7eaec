// A webhook receiver for bench/events-overhead.ts, in a process of its own (child-process.ts) so
// that it does not share an event loop with the load generator: answers every POST 204 once its
// body is read, and replies to any message with how many it answered.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

let received = 0;
const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    received++;
    res.writeHead(204).end();
  });
});
server.listen(0, '127.0.0.1', () => {
  process.send!(`http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`);
});
process.on('message', () => process.send!(received));
process.on('SIGTERM', () => process.exit(0));
