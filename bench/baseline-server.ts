// The ceiling of a read route: a plain node:http server answering, from memory, the bytes the real
// route answered once (its body and content type), for any request to that path. No framework,
// no authentication, no database: what Node alone costs to serve the same response.
// Runs as a child of the bench (child-process.ts); each message {path, body, type} adds a route.
import { createServer } from 'node:http';

type Route = { path: string; body: Uint8Array; type: string };

const routes = new Map<string, { body: Buffer; type: string }>();

const server = createServer((req, res) => {
  const route = routes.get(req.url ?? '');
  if (!route) return res.writeHead(404).end();
  res.writeHead(200, { 'content-type': route.type, 'content-length': route.body.length });
  res.end(route.body);
});

server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as { port: number };
  process.on('message', (route: Route) => {
    routes.set(route.path, { body: Buffer.from(route.body), type: route.type });
    process.send!('ok');
  });
  process.send!(`http://127.0.0.1:${port}`);
});
process.once('SIGTERM', () => process.exit(0));
// The bench stopped without stopping us.
process.once('disconnect', () => process.exit(0));
