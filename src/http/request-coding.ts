// A request body in a content coding (`Content-Encoding: gzip`, `br`...) is refused before its
// bytes are read: every route takes JSON or a form as sent, and a compressed body read as plain
// would fail as "not valid JSON", which hides the cause. 400 `invalid_body` naming the coding, as
// for a wrong Content-Type (RFC 9110 8.4 allows refusing a coding the server does not take); the
// token endpoint answers it as its `invalid_request`. A request without a body is not judged.
import type { FastifyInstance } from 'fastify';
import { errors } from './errors.ts';

function hasBody(headers: Record<string, string | string[] | undefined>): boolean {
  const length = headers['content-length'];
  return headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

export function installRequestCoding(app: FastifyInstance): void {
  app.addHook('preParsing', async (request, _reply, payload) => {
    const coding = request.headers['content-encoding']?.trim().toLowerCase();
    if (coding && coding !== 'identity' && hasBody(request.headers)) {
      throw errors.invalidBody(
        `Content-Encoding ${JSON.stringify(coding.slice(0, 40))} is not accepted: send the body uncompressed.`,
      );
    }
    return payload;
  });
}
