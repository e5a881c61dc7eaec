// Limits on the connection itself, enforced by Node before any route runs, and the answer to
// the errors raised at that level (a request too slow to arrive, a request line and headers
// over Node's 16 KiB, malformed HTTP): the error model with an X-Error-Id and the security
// headers, not Fastify's default body.
import { randomUUID } from 'node:crypto';
import { type Server, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type {
  FastifyBaseLogger,
  FastifyError,
  FastifyHttpOptions,
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
} from 'fastify';
import { type AppError, errors } from './errors.ts';
import { API_POLICY, SECURITY_HEADERS } from './security-headers.ts';

export type ConnectionLimits = {
  /** Headers and body must have arrived within this (slow clients): 408 and the socket closes. */
  requestTimeoutMs: number;
  headersTimeoutMs: number;
  /** A socket without traffic for this long is closed; longer than any handler (fiscal 15 s). */
  idleTimeoutMs: number;
  /** Longer than the usual 60 s idle timeout of load balancers, so the proxy closes first. */
  keepAliveTimeoutMs: number;
  /** How often Node checks the request and headers timeouts. */
  checkIntervalMs: number;
};

const CONNECTION_LIMITS: ConnectionLimits = {
  requestTimeoutMs: 30_000,
  headersTimeoutMs: 15_000,
  idleTimeoutMs: 60_000,
  keepAliveTimeoutMs: 72_000,
  checkIntervalMs: 1_000,
};

function errorFor(code: string | undefined): AppError {
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return errors.requestTimeout();
  if (code === 'HPE_HEADER_OVERFLOW') return errors.headersTooLarge();
  return errors.malformedRequest();
}

/** Rendered here: these answers are made before any route context (or its hooks) exists. */
function answer(appError: AppError, log: FastifyBaseLogger, code: string | undefined) {
  const errorId = randomUUID();
  log.info({ errorId, code, key: appError.key }, 'request refused before routing');
  const body = JSON.stringify({
    statusCode: appError.statusCode,
    message: appError.message,
    key: appError.key,
  });
  const headers = {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    'x-error-id': errorId,
    'cache-control': 'no-store',
    'content-security-policy': API_POLICY,
    ...SECURITY_HEADERS,
  };
  return { body, headers };
}

function clientErrorHandler(this: FastifyInstance, error: NodeJS.ErrnoException, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const appError = errorFor(error.code);
  const { body, headers } = answer(appError, this.log, error.code);
  const head = Object.entries({ ...headers, connection: 'close' }).map(
    ([name, value]) => `${name}: ${value}\r\n`,
  );
  // As Node itself does: never write into a response that has already started on this socket.
  const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (socket.writable && !inFlight?.headersSent) {
    socket.write(
      `HTTP/1.1 ${appError.statusCode} ${STATUS_CODES[appError.statusCode]}\r\n${head.join('')}\r\n${body}`,
    );
  }
  socket.destroy(error);
}

/** A path segment over the router's 100 characters, or a URL that is not valid percent-encoding. */
function frameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const appError = errors.invalidParameter(
    error.code === 'FST_ERR_MAX_PARAM_LENGTH'
      ? 'A path parameter is longer than 100 characters.'
      : 'The URL is not valid percent-encoding.',
  );
  const { body, headers } = answer(appError, request.log, error.code);
  reply.raw.writeHead(appError.statusCode, headers).end(body);
}

/** The Fastify options that set the limits (tests pass shorter ones). */
export function connectionOptions(overrides: Partial<ConnectionLimits> = {}): FastifyHttpOptions<Server> {
  const limits = { ...CONNECTION_LIMITS, ...overrides };
  return {
    requestTimeout: limits.requestTimeoutMs,
    connectionTimeout: limits.idleTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    http: {
      requestTimeout: limits.requestTimeoutMs,
      headersTimeout: Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs),
      connectionsCheckingInterval: limits.checkIntervalMs,
    },
    clientErrorHandler,
    frameworkErrors,
  };
}
