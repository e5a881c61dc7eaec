// The rows of the tenants scenario that are not a spread over restaurants: the first read of a
// menu after its catalog version moved (one client, timed at the client until the answer's
// headers, which the server sends once it has loaded, assembled and planned the menu, and until
// its last byte, against a repeated read), a polling loop of If-None-Match revalidations of the hot menu against plain reads of it,
// and the hot menu by Accept-Encoding.
import { get } from 'node:http';
import pg from 'pg';
import { percentile } from './load.ts';
import { prng, type Tenant } from './tenants-data.ts';
import { loadWindow } from './tenants-load.ts';
import type { Measured } from './tenants-report.ts';

type Window = { connections: number; seconds: number; warmup: number };

export async function firstReads(
  url: string,
  databaseUrl: string,
  menus: Tenant[],
  authorization: (tenant: Tenant) => string,
): Promise<Measured['firstRead']> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const rows: Measured['firstRead'] = [];
  for (const tenant of menus)
    for (const encoding of ['identity', 'gzip']) {
      /** Until the headers (fetch resolves with them) and until the last byte. */
      const time = async (bump: boolean) => {
        if (bump)
          await client.query('update restaurants set catalog_version = catalog_version + 1 where id = $1', [
            tenant.id,
          ]);
        const at = performance.now();
        // fetch asks for gzip unless told otherwise; the load rows send no Accept-Encoding.
        const res = await fetch(`${url}/v1/menu?channel=in_store`, {
          headers: { authorization: authorization(tenant), 'accept-encoding': encoding },
        });
        const headers = performance.now() - at;
        await res.arrayBuffer();
        return { headers, whole: performance.now() - at };
      };
      const cold: { headers: number; whole: number }[] = [];
      const warm: { headers: number; whole: number }[] = [];
      for (let i = 0; i < 40; i++) {
        cold.push(await time(true));
        warm.push(await time(false));
      }
      const sorted = (list: typeof cold, key: 'headers' | 'whole') =>
        list.map((t) => t[key]).sort((a, b) => a - b);
      rows.push({
        products: tenant.products,
        encoding,
        p50: percentile(sorted(cold, 'headers'), 0.5),
        p99: percentile(sorted(cold, 'headers'), 0.99),
        wholeP50: percentile(sorted(cold, 'whole'), 0.5),
        warmP50: percentile(sorted(warm, 'whole'), 0.5),
      });
    }
  await client.end();
  return rows;
}

/** The bytes of an answer as sent (fetch would decode them). */
function rawBytes(url: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    get(url, { headers }, (res) => {
      let bytes = 0;
      res.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
      });
      res.on('end', () => resolve(bytes));
    }).on('error', reject);
  });
}

export async function pollingAndCompression(
  url: string,
  authorization: string,
  { connections, seconds, warmup }: Window,
): Promise<Pick<Measured, 'polling' | 'compression'>> {
  const headers = { authorization };
  const variants = ['channel=in_store', 'channel=delivery', 'channel=in_store&only_available=true'];
  const tags = await Promise.all(
    variants.map(async (query) => {
      const res = await fetch(`${url}/v1/menu?${query}`, { headers });
      await res.arrayBuffer();
      return {
        path: `/v1/menu?${query}`,
        headers: { ...headers, 'if-none-match': res.headers.get('etag')! },
      };
    }),
  );
  const random = prng(9);
  const plain = () => ({ path: tags[Math.floor(random() * tags.length)].path, headers });
  const conditional = () => tags[Math.floor(random() * tags.length)];
  await loadWindow(url, plain, connections, warmup);
  const menu = await loadWindow(url, plain, connections, seconds);
  const revalidated = await loadWindow(url, conditional, connections, seconds, (s) => s === 304);
  const compression: Measured['compression'] = [];
  for (const encoding of ['', 'gzip', 'br']) {
    const next = () => ({
      path: '/v1/menu?channel=in_store',
      headers: encoding ? { ...headers, 'accept-encoding': encoding } : headers,
    });
    const bytes = await rawBytes(`${url}${next().path}`, next().headers);
    await loadWindow(url, next, connections, warmup);
    compression.push({
      encoding: encoding || 'none',
      bytes,
      result: await loadWindow(url, next, connections, seconds),
    });
  }
  return { polling: [{ menu, revalidated }], compression };
}
