// The one place errors become responses: `{statusCode, message, key}` (plus `errors` for
// validation) and an X-Error-Id header, logged with the same id. OAuth errors keep RFC 6749's shape.
import { randomUUID } from 'node:crypto';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, errors, type FieldError, OAuthError } from './errors.ts';
import { patternMessage } from './validation.ts';

type AjvError = { instancePath: string; message?: string; keyword: string; params: Record<string, unknown> };

export function fieldOf(e: AjvError): string {
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
  if (e.keyword === 'pattern') return patternMessage(String(e.params.pattern)) ?? e.message ?? 'is invalid';
  return e.message ?? 'is invalid';
}

function fromValidation(error: FastifyError): AppError {
  const fields: FieldError[] = (error.validation as AjvError[]).map((e) => ({
    field: fieldOf(e),
    message: messageOf(e),
  }));
  const summary = fields.map((f) => `${f.field || '(root)'} ${f.message}`).join('; ');
  const context = error.validationContext;
  if (context === 'querystring') return errors.invalidQuery(`Invalid query: ${summary}.`, fields);
  if (context === 'params') return errors.invalidParameter(`Invalid path parameter: ${summary}.`, fields);
  return errors.invalidBody(`Invalid body: ${summary}.`, fields);
}

const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  '57P01',
  '57P02',
  '57P03',
]);

function isDatabaseUnavailable(error: { code?: string; message?: string }): boolean {
  if (error.code && (CONNECTION_CODES.has(error.code) || error.code.startsWith('08'))) return true;
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
  if (isDatabaseUnavailable(error)) return errors.databaseUnavailable();
  if (error.statusCode === 405) return errors.methodNotAllowed();
  return errors.internal();
}

export function installErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const errorId = randomUUID();
    reply.header('x-error-id', errorId);
    if (error instanceof OAuthError) {
      request.log.info({ errorId, oauthError: error.error, detail: error.message }, 'token endpoint error');
      reply.headers({ 'cache-control': 'no-store', pragma: 'no-cache', ...error.headers });
      return reply.code(error.statusCode).send({ error: error.error, error_description: error.message });
    }
    const appError = toAppError(error);
    if (appError.statusCode >= 500) request.log.error({ errorId, err: error }, appError.key);
    else request.log.info({ errorId, key: appError.key, fields: appError.errors }, appError.message);
    if (appError.headers) reply.headers(appError.headers);
    return reply.code(appError.statusCode).send({
      statusCode: appError.statusCode,
      message: appError.message,
      key: appError.key,
      ...(appError.errors?.length ? { errors: appError.errors } : {}),
      ...appError.extra,
    });
  });
  app.setNotFoundHandler((request) => {
    throw errors.routeNotFound(request.method, request.url);
  });
}
