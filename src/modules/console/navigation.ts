// Where console pages send the browser next, and the form body every console POST carries.
import type { FastifyRequest } from 'fastify';

export const HOME = '/console/keys';

/** Only this console or the authorization endpoint: never another site (no open redirect). Printable
 * ASCII only: anything else cannot stand in a Location header (Node refuses it: a 500). */
export function safeNext(value: unknown): string {
  if (typeof value !== 'string' || /[\\]|[^\x21-\x7e]/.test(value)) return HOME;
  if (!/^\/(console(\/|\?|$)|oauth\/authorize\?)/.test(value)) return HOME;
  // Where the browser really goes: it resolves dot segments ("/console/../v1", "%2e%2e") first.
  const { pathname } = new URL(value, 'http://console.invalid');
  return /^\/(console(\/.*)?|oauth\/authorize)$/.test(pathname) ? value : HOME;
}

export function nextParam(target: string): string {
  return new URLSearchParams({ next: target }).toString();
}

/** The url-encoded form of a POST (index.ts parses every console body into URLSearchParams). */
export function formOf(request: FastifyRequest): URLSearchParams {
  return request.body instanceof URLSearchParams ? request.body : new URLSearchParams();
}

export function loginUrl(request: FastifyRequest): string {
  return `/console/login?${nextParam(request.method === 'GET' ? request.url : HOME)}`;
}
