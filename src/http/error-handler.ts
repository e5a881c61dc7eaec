// The one place errors become responses: `{statusCode, message, key}` (plus `errors` for
// validation) and an X-Error-Id header, logged with the same id. OAuth errors keep RFC 6749's shape.
// Every answer and log line is bounded: at most MAX_FIELD_ERRORS problems (errors.ts), messages
// and logged error details cut to MAX_MESSAGE characters, whatever the request carried.
import { randomUUID } from 'node:crypto';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, clip, errors, type FieldError, OAuthError, summarize } from './errors.ts';
import {
  enumMessage,
  formatMessage,
  patternMessage,
  REPEATED_KEYWORD,
  STOPPED_KEYWORD,
  TEXT_KEYWORD,
} from './validation.ts';

const MAX_MESSAGE = 2000;

type AjvError = { instancePath: string; message?: string; keyword: string; params: Record<string, unknown> };

function fieldOf(e: AjvError): string {
  const path = e.instancePath
    .split('/')
    .slice(1)
    .map((part) => (/^\d+$/.test(part) ? `[${part}]` : `.${part}`))
    .join('')
    .replace(/^\./, '');
  const child = (e.params.missingProperty ?? e.params.additionalProperty) as string | undefined;
  if (child) return path ? `${path}.${child}` : child;
  return path;
}

function messageOf(e: AjvError): string {
  if (e.keyword === 'additionalProperties') return 'is not an accepted field';
  if (e.keyword === 'required') return 'is required';
  if (e.keyword === STOPPED_KEYWORD) return e.message ?? 'has more problems';
  // A typed parameter's text, or a query parameter given more than once (validation.ts).
  if (e.keyword === TEXT_KEYWORD || e.keyword === REPEATED_KEYWORD) return e.message ?? 'is invalid';
  // Never the pattern itself: a sentence with an example (validation.ts explainedPattern).
  if (e.keyword === 'pattern') return patternMessage(String(e.params.pattern));
  if (e.keyword === 'format') return formatMessage(String(e.params.format));
  if (e.keyword === 'enum') return enumMessage(e.params.allowedValues as unknown[]);
  if (e.keyword === 'const') return enumMessage([e.params.allowedValue]);
  return e.message ?? 'is invalid';
}

function fromValidation(error: FastifyError): AppError {
  const context = error.validationContext;
  const fields: FieldError[] = (error.validation as AjvError[]).map((e) => ({
    field: fieldOf(e),
    message: messageOf(e),
  }));
  const summary = summarize(fields);
  if (context === 'querystring') return errors.invalidQuery(`Invalid query: ${summary}.`, fields);
  if (context === 'params') return errors.invalidParameter(`Invalid path parameter: ${summary}.`, fields);
  return errors.invalidBody(`Invalid body: ${summary}.`, fields);
}

const CONNECTION_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE']);
// SQLSTATE classes and codes that mean "not now" rather than "wrong": 08 connection exceptions,
// 53 insufficient resources (53300: out of connection slots), 57 operator intervention (57014: the
// statement outlived its budget; 57P01-03: shutdown), 55P03 lock_timeout, 25P03 a transaction
// left idle past its limit, 40P01 deadlock_detected (the write was the victim of a cycle with
// another writer, an import say) and 40001 serialization_failure. The server has rolled the
// transaction back in each case.
const UNAVAILABLE_SQLSTATE = /^(08|53|57)|^55P03$|^25P03$|^40P01$|^40001$/;

function isDatabaseUnavailable(error: { code?: string; message?: string }): boolean {
  if (error.code && (CONNECTION_CODES.has(error.code) || UNAVAILABLE_SQLSTATE.test(error.code))) return true;
  return /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error/.test(
    error.message ?? '',
  );
}

export function toAppError(error: FastifyError & { code?: string }): AppError {
  if (error instanceof AppError) return error;
  if (error.validation) return fromValidation(error);
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return errors.payloadTooLarge();
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return errors.invalidBody('Content-Type must be application/json.');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return errors.invalidBody('The JSON body is empty.');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return errors.invalidBody('Content-Length does not match the body.');
  }
  if (error instanceof SyntaxError || error.code === 'FST_ERR_CTP_INVALID_JSON_BODY') {
    return errors.invalidBody('The body is not valid JSON.');
  }
  if (isDatabaseUnavailable(error)) return errors.serviceUnavailable();
  if (error.statusCode === 405) return errors.methodNotAllowed();
  return errors.internal();
}

/** The token endpoint speaks RFC 6749 section 5.2 for every error, its own 5xx included. */
function asOAuth({ statusCode, message, headers }: AppError): OAuthError {
  const code =
    statusCode === 503 ? 'temporarily_unavailable' : statusCode >= 500 ? 'server_error' : 'invalid_request';
  return new OAuthError(statusCode, code, message, headers);
}

function sendOAuth(reply: FastifyReply, error: OAuthError, description: string) {
  reply.headers({ 'cache-control': 'no-store', pragma: 'no-cache', ...error.headers });
  return reply.code(error.statusCode).send({ error: error.error, error_description: description });
}

/** What the log keeps of an unexpected error: its kind, code, message, detail and stack, each cut. */
function boundedError(error: Error & { code?: unknown; detail?: unknown }): Record<string, unknown> {
  const cut = (value: unknown) => (value === undefined ? undefined : clip(String(value), MAX_MESSAGE));
  return {
    type: error.constructor?.name ?? typeof error,
    code: cut(error.code),
    message: cut(error.message),
    detail: cut(error.detail),
    stack: cut(error.stack),
  };
}

export function installErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const errorId = randomUUID();
    reply.header('x-error-id', errorId);
    if (error instanceof OAuthError) {
      const description = clip(error.message, MAX_MESSAGE);
      request.log.info({ errorId, oauthError: error.error, detail: description }, 'token endpoint error');
      return sendOAuth(reply, error, description);
    }
    const appError = toAppError(error);
    const message = clip(appError.message, MAX_MESSAGE);
    if (appError.statusCode >= 500 && !appError.expected) {
      request.log.error({ errorId, err: boundedError(error) }, appError.key);
    } else request.log.info({ errorId, key: appError.key, fields: appError.errors }, message);
    if (request.url.startsWith('/oauth/token')) return sendOAuth(reply, asOAuth(appError), message);
    if (appError.headers) reply.headers(appError.headers);
    return reply.code(appError.statusCode).send({
      statusCode: appError.statusCode,
      message,
      key: appError.key,
      ...(appError.errors?.length ? { errors: appError.errors } : {}),
      ...appError.extra,
    });
  });
  app.setNotFoundHandler((request) => {
    throw errors.routeNotFound(request.method, request.url);
  });
}
