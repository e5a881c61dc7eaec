// A request body is UTF-8 text or it is refused: a body in another encoding (a product name in
// Latin-1, "Caf\xe9") would otherwise be read with its bytes replaced by U+FFFD and stored so.
// 400 `invalid_body` naming the first byte that is not UTF-8 and its offset; the token endpoint
// answers it as its `invalid_request`. A leading byte order mark is dropped (RFC 8259 8.1 lets a
// JSON parser ignore it; the forms do the same). A U+FFFD sent as UTF-8 (EF BF BD) is text like any.
import { isUtf8 } from 'node:buffer';
import type { FastifyInstance } from 'fastify';
import { firstInvalidUtf8 } from '../lib/utf8.ts';
import { errors } from './errors.ts';

/** `body` as text, a leading byte order mark dropped; 400 invalid_body if it is not UTF-8. */
export function utf8Text(body: Buffer): string {
  // isUtf8 then toString: twice as fast as a fatal TextDecoder on a 100 KB body (both simdutf).
  if (!isUtf8(body)) {
    const bad = firstInvalidUtf8(body);
    const where = bad ? `byte ${bad.hex} at offset ${bad.offset}` : 'an incomplete character at its end';
    throw errors.invalidBody(`The body is not UTF-8 text (${where}): send it as UTF-8.`);
  }
  const bom = body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf;
  return body.toString('utf8', bom ? 3 : 0);
}

const BROKEN_ESCAPE = /%(?![0-9A-Fa-f]{2})/;
const ESCAPE_RUNS = /(?:%[0-9A-Fa-f]{2})+/g;

/**
 * The fields of a url-encoded form (its body read by utf8Text). Its escapes must spell UTF-8 as
 * the body does: URLSearchParams reads `%E9` (Latin-1's é) as U+FFFD, and keeps a `%` that starts
 * no escape (`api_key=%zz`) as it is. 400 invalid_body naming the first such byte.
 */
export function formFields(text: string): URLSearchParams {
  const broken = BROKEN_ESCAPE.exec(text);
  if (broken)
    throw errors.invalidBody(
      `The form has a % not followed by two hexadecimal digits (at offset ${broken.index}).`,
    );
  // A character's bytes are escaped one after the other: each run of escapes is whole characters.
  for (const run of text.matchAll(ESCAPE_RUNS)) {
    const bytes = Buffer.from(run[0].replaceAll('%', ''), 'hex');
    if (isUtf8(bytes)) continue;
    const bad = firstInvalidUtf8(bytes)?.offset ?? bytes.length - 1;
    const escaped = run[0].slice(bad * 3, bad * 3 + 3).toUpperCase();
    throw errors.invalidBody(
      `The form is not UTF-8 text (the escape ${escaped} at offset ${run.index + bad * 3}): send it as UTF-8.`,
    );
  }
  return new URLSearchParams(text);
}

type JsonParser = (request: unknown, body: string, done: (err: Error | null, body?: unknown) => void) => void;

/** application/json read as bytes, checked as UTF-8, then parsed by Fastify's own JSON parser
 * (its empty-body and syntax errors, its refusal of `__proto__` and `constructor.prototype`). */
export function installUtf8Bodies(app: FastifyInstance): void {
  const { onProtoPoisoning = 'error', onConstructorPoisoning = 'error' } = app.initialConfig;
  const parseJson = app.getDefaultJsonParser(onProtoPoisoning, onConstructorPoisoning) as JsonParser;
  app.removeContentTypeParser('application/json');
  // A parser's throw (utf8Text's 400) is Fastify's done(error).
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) =>
    parseJson(request, utf8Text(body as Buffer), done),
  );
}
