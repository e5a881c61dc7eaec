// `comanda export`: a restaurant's data as an import file. Exported from the demo and imported
// into an empty database, every read route answers the same.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadDemo } from '../../src/demo/demo.ts';
import { demoPeriod } from '../../src/demo/period.ts';
import { exportRestaurant } from '../../src/import/export.ts';
import { importData } from '../../src/import/import.ts';
import { decryptSecret } from '../../src/lib/encryption.ts';
import { buildTestApp } from '../support/app.ts';
import { sessionFor } from '../support/tokens.ts';

const TODAY = new Date('2026-05-20T12:00:00Z');

test('export then import into an empty database gives the same answers on every read route', async (t) => {
  const source = await buildTestApp(t);
  const target = await buildTestApp(t);
  const key = source.ctx.secrets.fiscalTokenKey;
  await loadDemo(source.ctx.db, { fiscalTokenKey: key, today: TODAY });
  const file = await exportRestaurant(source.ctx.db, 1, { includeSecrets: true, fiscalTokenKey: key });
  // Through JSON, as the file travels.
  await importData(target.ctx.db, JSON.parse(JSON.stringify(file)), { fiscalTokenKey: key });

  const get = async (side: typeof source, url: string) => {
    const res = await side.app.inject({ url, headers: sessionFor(1, side.ctx.secrets.sessionSecret) });
    return { status: res.statusCode, body: res.json() };
  };
  const same = async (url: string) => {
    const [a, b] = await Promise.all([get(source, url), get(target, url)]);
    assert.equal(a.status, 200, `${url}: ${JSON.stringify(a.body)}`);
    assert.deepEqual(b, a, url);
    return a.body;
  };

  const { months } = demoPeriod(TODAY);
  const at = 'at=2026-05-20T20:00:00-03:00';
  const urls = ['/v1/products', `/v1/menu?${at}`, `/v1/menu?channel=delivery&include_fiscal_info=true&${at}`];
  for (const [from, to] of [
    [months[0], months[1]],
    [months[2], months[3]],
  ]) {
    const nfe = `start_date=${from}-01T00:00:00-03:00&end_date=${to}-28T23:59:59-03:00`;
    urls.push(
      `/v1/nfe-received?${nfe}`,
      `/v1/nfe-received?${nfe}&pendente=true`,
      `/v1/nfe-received?${nfe}&brand_id=11`,
    );
  }
  for (const url of urls) await same(url);

  const categories = (await same('/v1/products')) as { products: { id: number }[] }[];
  const productIds = categories.flatMap((c) => c.products.map((p) => p.id));
  assert.ok(productIds.length > 20);
  for (const id of productIds) await same(`/v1/products/${id}`);

  for (const month of months) {
    let offset = 0;
    for (;;) {
      const page = (await same(
        `/v1/financial/cash-flows?start_date=${month}-01&end_date=${month}-28&offset=${offset}`,
      )) as { remaining: number };
      if (page.remaining <= 0) break;
      offset += 100;
    }
  }
  await same(
    `/v1/financial/cash-flows?start_date=${months[1]}-01&end_date=${months[2]}-28&date_type=competence_date`,
  );
});

test('an export leaves the fiscal tokens out unless secrets are asked for', async (t) => {
  const { ctx } = await buildTestApp(t);
  const key = ctx.secrets.fiscalTokenKey;
  await loadDemo(ctx.db, { fiscalTokenKey: key, today: TODAY });
  const without = await exportRestaurant(ctx.db, 1);
  assert.deepEqual(
    without.brands.map((b) => b.fiscal_token),
    [null, null],
  );
  assert.ok(!JSON.stringify(without).includes('demo-fiscal-token'));
  const withSecrets = await exportRestaurant(ctx.db, 1, { includeSecrets: true, fiscalTokenKey: key });
  assert.deepEqual(
    withSecrets.brands.map((b) => b.fiscal_token),
    ['demo-fiscal-token-cantina-bella', 'demo-fiscal-token-bella-express'],
  );
  const stored = await ctx.db
    .selectFrom('brands')
    .select('fiscal_token_encrypted')
    .where('id', '=', 10)
    .executeTakeFirstOrThrow();
  assert.equal(decryptSecret(stored.fiscal_token_encrypted!, key), 'demo-fiscal-token-cantina-bella');
  assert.deepEqual(Object.keys(withSecrets).includes('api_keys'), false);
});
