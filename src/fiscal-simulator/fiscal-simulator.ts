// A local fiscal provider speaking the provider's protocol (fiscal-provider.md) over real HTTP,
// with failure modes for tests and for integrators (`comanda fiscal-simulator`).
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ProviderDocument } from './simulator-documents.ts';

export type SimulatorMode =
  | 'ok'
  | 'slow'
  | 'oversized'
  | 'redirect'
  | 'invalid_json'
  | 'server_error'
  | 'rate_limited';

type FiscalSimulatorOptions = {
  port?: number;
  host?: string;
  /** Access key -> document (served as JSON) or a raw body (served as it is); or a lookup of one. */
  notes: Map<string, ProviderDocument | string> | NoteLookup;
  tokens: Set<string>;
  mode?: SimulatorMode;
  /** How long `slow` waits before answering; default past the client's 15 s. */
  slowMs?: number;
  requestsPerMinute?: number;
};

/** A note looked up when asked for (the server's demo simulator reads its database). */
type NoteLookup = (accessKey: string) => Promise<ProviderDocument | string | undefined>;

export type FiscalSimulator = {
  url: string;
  close(): Promise<void>;
  setMode(mode: SimulatorMode): void;
  /** Requests received so far (tests check that a query was, or was not, made). */
  requestCount(): number;
};

const PATH = /^\/v2\/nfes_recebidas\/([^/]+)\.json$/;
const OVERSIZED_BYTES = 6 * 1024 * 1024;

export async function startFiscalSimulator(options: FiscalSimulatorOptions): Promise<FiscalSimulator> {
  let mode: SimulatorMode = options.mode ?? 'ok';
  const limit = options.requestsPerMinute ?? 100;
  const windows = new Map<string, { start: number; count: number }>();
  const timers = new Set<NodeJS.Timeout>();
  let received = 0;

  const server = createServer((req, res) => {
    received += 1;
    res.on('error', () => {});
    const send = (status: number, body: unknown, headers: Record<string, string | number> = {}) => {
      // Sent with its length, as the provider does: the client can read it into one buffer.
      const bytes = Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
      const head = { 'content-type': 'application/json; charset=utf-8', 'content-length': bytes.length };
      res.writeHead(status, { ...head, ...headers }).end(bytes);
    };
    // A request target or an escape that does not parse is a route not found, never a throw: the
    // server's demo runs this simulator in its own process.
    const url = URL.parse(req.url ?? '/', 'http://simulator');
    const match = req.method === 'GET' && url ? PATH.exec(url.pathname) : null;
    if (!url || !match) return send(404, failure('nao_encontrado', 'Rota nao encontrada'));
    const complete = url.searchParams.get('completa') === '1';
    const token = basicUser(req);
    if (token === undefined || !options.tokens.has(token)) {
      return send(403, failure('permissao_negada', 'Token invalido ou sem permissao'));
    }
    const now = Date.now();
    const window = windows.get(token);
    const current = window && now - window.start < 60_000 ? window : { start: now, count: 0 };
    current.count += 1;
    windows.set(token, current);
    const exhausted = mode === 'rate_limited' || current.count > limit;
    const rate = {
      'rate-limit-limit': limit,
      'rate-limit-remaining': exhausted ? 0 : limit - current.count,
      'rate-limit-reset': Math.ceil((current.start + 60_000 - now) / 1000),
    };
    if (exhausted) return send(429, failure('limite_excedido', 'Limite de requisicoes excedido'), rate);
    if (mode === 'server_error') return send(500, failure('erro_interno', 'Erro interno'), rate);
    if (mode === 'redirect') return send(302, '', { ...rate, location: `${address()}/elsewhere` });
    if (mode === 'invalid_json') return send(200, '{"chave_nfe": "35', rate);
    if (mode === 'oversized') return streamOversized(res);
    const accessKey = decodedKey(match[1]);
    if (accessKey === undefined)
      return send(404, failure('nao_encontrado', 'Nota fiscal nao encontrada'), rate);
    if (typeof options.notes === 'function') {
      return void options.notes(accessKey).then(
        (stored) => respond(stored),
        () => send(500, failure('erro_interno', 'Erro interno'), rate),
      );
    }
    respond(options.notes.get(accessKey));

    function respond(stored: ProviderDocument | string | undefined) {
      // Without completa=1 the provider answers only the summary fields.
      const note = typeof stored === 'object' && !complete ? summary(stored) : stored;
      const answer = () =>
        note === undefined
          ? send(404, failure('nao_encontrado', 'Nota fiscal nao encontrada'), rate)
          : send(200, note, rate);
      if (mode !== 'slow') return answer();
      const timer = setTimeout(() => {
        timers.delete(timer);
        answer();
      }, options.slowMs ?? 20_000);
      timers.add(timer);
      res.on('close', () => {
        clearTimeout(timer);
        timers.delete(timer);
      });
    }
  });

  const address = () => {
    const { port } = server.address() as AddressInfo;
    return `http://${options.host ?? '127.0.0.1'}:${port}`;
  };
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  return {
    url: address(),
    setMode: (next) => {
      mode = next;
    },
    requestCount: () => received,
    close: () =>
      new Promise<void>((resolve) => {
        for (const timer of timers) clearTimeout(timer);
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

const failure = (codigo: string, mensagem: string) => ({ codigo, mensagem, erros: [] });

const FULL_ONLY = /^(requisicao|protocolo)_/;
const summary = (document: ProviderDocument) =>
  Object.fromEntries(Object.entries(document).filter(([name]) => !FULL_ONLY.test(name)));

function decodedKey(encoded: string): string | undefined {
  try {
    return decodeURIComponent(encoded);
  } catch {
    return undefined;
  }
}

function basicUser(req: IncomingMessage): string | undefined {
  const [scheme, encoded] = (req.headers.authorization ?? '').split(' ');
  if (scheme?.toLowerCase() !== 'basic' || !encoded) return undefined;
  const decoded = Buffer.from(encoded, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon === -1 ? decoded : decoded.slice(0, colon);
}

/** Valid JSON past 5 MiB, sent chunked (no content-length) so the client has to count. */
function streamOversized(res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
  const chunk = Buffer.alloc(64 * 1024, 'x');
  let sent = 0;
  res.write('{"padding":"');
  const write = () => {
    while (sent < OVERSIZED_BYTES && !res.destroyed) {
      sent += chunk.length;
      if (!res.write(chunk)) return void res.once('drain', write);
    }
    if (!res.destroyed) res.end('"}');
  };
  write();
}
