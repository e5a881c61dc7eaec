// Helpers of the client tests: the real server on a socket, a fetch that records what is sent,
// and a small scripted HTTP server for the behaviours the real one cannot be made to show.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestContext } from 'node:test';
import type { Db } from '../../src/db/database.ts';
import { SCOPES } from '../../src/http/principal.ts';
import { storeApiKey } from '../../src/modules/auth/api-keys.ts';
import { buildTestApp } from '../support/app.ts';

export async function listeningApp(
  t: Pick<TestContext, 'after'>,
  options: Parameters<typeof buildTestApp>[1] = {},
) {
  const built = await buildTestApp(t, options);
  const baseUrl = await built.app.listen({ port: 0, host: '127.0.0.1' });
  return { ...built, baseUrl };
}

export async function apiKeyFor(db: Db, restaurantIds: number[], scopes: string[] = SCOPES): Promise<string> {
  return (await storeApiKey(db, { name: 'client test', restaurantIds, scopes, environment: 'test' })).api_key;
}

export type Sent = {
  method: string;
  path: string;
  body: string | undefined;
  authorization: string | undefined;
};

/** fetch, recording every request it sends. */
export function recordingFetch(): { fetch: typeof fetch; sent: Sent[] } {
  const sent: Sent[] = [];
  const recording: typeof fetch = (input, init) => {
    const url = new URL(String(input));
    const headers = new Headers(init?.headers);
    sent.push({
      method: init?.method ?? 'GET',
      path: url.pathname + url.search,
      body: typeof init?.body === 'string' ? init.body : undefined,
      authorization: headers.get('authorization') ?? undefined,
    });
    return fetch(input, init);
  };
  return { fetch: recording, sent };
}

export const refreshesIn = (sent: Sent[]) =>
  sent.filter(
    (s) => s.path === '/oauth/token' && new URLSearchParams(s.body).get('grant_type') === 'refresh_token',
  );

export type Script = (request: IncomingMessage, response: ServerResponse, body: string) => void;

/** A server answering each request with the next script of its path (the last one repeats). */
export async function scriptedServer(t: Pick<TestContext, 'after'>, scripts: Record<string, Script[]>) {
  const received: {
    method: string;
    path: string;
    search: string;
    body: string;
    at: number;
    headers: IncomingMessage['headers'];
  }[] = [];
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', () => {
      const { pathname: path, search } = new URL(request.url ?? '/', 'http://x');
      const count = received.filter((r) => r.path === path).length;
      received.push({
        method: request.method ?? '',
        path,
        search,
        body,
        at: Date.now(),
        headers: request.headers,
      });
      const list = scripts[path] ?? [
        (_q, res) => json(res, 404, { statusCode: 404, key: 'route_not_found', message: 'No route.' }),
      ];
      list[Math.min(count, list.length - 1)](request, response, body);
    });
  });
  return { baseUrl: await listenOn(t, server), received };
}

/** Listens on a free port of 127.0.0.1 until the test ends; its base URL. */
export async function listenOn(t: Pick<TestContext, 'after'>, server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(
    () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  );
  const { port } = server.address() as AddressInfo;
  return `http://127.0.0.1:${port}`;
}

export function json(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
) {
  response.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
}

export const apiError =
  (status: number, key: string, headers: Record<string, string> = {}): Script =>
  (_q, res) =>
    json(
      res,
      status,
      { statusCode: status, message: `Error ${key}.`, key },
      { 'x-error-id': `id-${key}`, ...headers },
    );

export const ok =
  (body: unknown): Script =>
  (_q, res) =>
    json(res, 200, body);

/** Closes the connection without an answer: the caller cannot know what happened. */
export const hangUp: Script = (request) => request.socket.destroy();

/** Never answers: the caller waits for the headers until its timeout. */
export const silent: Script = () => {};

/** Sends the status line, the headers and a part of the body, then stalls. */
export const stallBody =
  (status: number): Script =>
  (_q, res) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.write('{"id":');
  };
