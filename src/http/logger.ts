// pino options: every secret-bearing header and body field is redacted before a line is written.
import type { FastifyServerOptions } from 'fastify';
import { clip } from './errors.ts';

const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["proxy-authorization"]',
  'res.headers["set-cookie"]',
  // Top-level fields of a line (`log.warn({ api_key }, ...)`), then one level down; `code` only in a
  // request body (an authorization code): elsewhere it is an error's code (`err.code`: ECONNREFUSED,
  // 57P01), which an operator needs.
  'api_key',
  'refresh_token',
  'access_token',
  'client_secret',
  'code_verifier',
  'password',
  'token',
  'fiscal_token',
  'authorization',
  '*.api_key',
  '*.refresh_token',
  '*.access_token',
  '*.client_secret',
  '*.code_verifier',
  '*.password',
  '*.token',
  '*.fiscal_token',
  '*.authorization',
  'body.api_key',
  'body.refresh_token',
  'body.client_secret',
  'body.password',
  'body.code',
];

export function loggerOptions(level: string, stream?: NodeJS.WritableStream): FastifyServerOptions['logger'] {
  return {
    level,
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    serializers: {
      // The URL is logged without its query string (a misused client may put a secret there)
      // and cut, as every logged detail is.
      req: (req) => ({ method: req.method, url: clip(String(req.url).split('?')[0], 2000), id: req.id }),
    },
    ...(stream ? { stream } : {}),
  } as FastifyServerOptions['logger'];
}
