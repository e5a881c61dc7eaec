// Requests of the token endpoint. Refresh tokens are single use (reuse revokes the family), so
// the refresh scenario draws each request's token from a pool filled by key exchanges before it,
// and every successful refresh puts its successor back: no token is ever sent twice.
import type { BenchRequest } from './load.ts';

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const PATH = '/oauth/token';
const tokenOf = (body: string) => (JSON.parse(body) as { refresh_token: string }).refresh_token;

export function exchangeRequest(apiKey: string): BenchRequest {
  const body = `grant_type=api_key&api_key=${encodeURIComponent(apiKey)}`;
  return { method: 'POST', path: PATH, headers: FORM, vary: () => ({ path: PATH, body }) };
}

export async function refreshRequest(
  send: (request: BenchRequest) => Promise<string>,
  apiKey: string,
  size: number,
): Promise<BenchRequest> {
  const pool: string[] = [];
  for (let i = 0; i < size; i++) pool.push(tokenOf(await send(exchangeRequest(apiKey))));
  return {
    method: 'POST',
    path: PATH,
    headers: FORM,
    vary() {
      const token = pool.shift();
      if (!token) throw new Error('the refresh-token pool ran dry (a refresh failed)');
      return { path: PATH, body: `grant_type=refresh_token&refresh_token=${encodeURIComponent(token)}` };
    },
    onResponse(status, text) {
      if (status === 200) pool.push(tokenOf(text));
    },
  };
}
