// An import that creates or changes a product writes its history entry, as the API's writes do;
// the history shows the import as the credential.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadDemo } from '../../src/demo/demo.ts';
import { importData } from '../../src/import/import.ts';
import { buildTestApp } from '../support/app.ts';
import { sessionFor } from '../support/tokens.ts';
import { FISCAL_KEY, world } from './world.ts';

test('the product history records what an import created and changed, with the import as credential', async (t) => {
  const { app, ctx } = await buildTestApp(t);
  const history = async (productId: number) => {
    const res = await app.inject({
      url: `/v1/products/${productId}/history`,
      headers: sessionFor(1, ctx.secrets.sessionSecret),
    });
    assert.equal(res.statusCode, 200, res.body);
    return res.json().items as {
      credential: unknown;
      operation: string;
      changes: { field: string; from: unknown; to: unknown }[];
    }[];
  };
  await importData(ctx.db, world(), { fiscalTokenKey: FISCAL_KEY });
  const [created] = await history(1000);
  assert.equal(created.operation, 'create');
  assert.deepEqual(created.credential, { kind: 'import' });
  assert.deepEqual(
    created.changes.find((c) => c.field === 'price'),
    { field: 'price', from: null, to: '42.90' },
  );
  assert.deepEqual(
    created.changes.find((c) => c.field === 'fiscal_info.ncm'),
    { field: 'fiscal_info.ncm', from: null, to: '02013000' },
  );

  const changed = world();
  changed.products[0].price = 47.5;
  changed.products[0].fiscal.ncm = '02013001';
  await importData(ctx.db, changed, { fiscalTokenKey: FISCAL_KEY });
  const entries = await history(1000);
  assert.equal(entries.length, 2);
  assert.deepEqual(entries[0], {
    at: (entries[0] as any).at,
    credential: { kind: 'import' },
    operation: 'edit',
    changes: [
      { field: 'price', from: '42.90', to: '47.50' },
      { field: 'fiscal_info.ncm', from: '02013000', to: '02013001' },
    ],
  });
  assert.equal((await history(1001)).length, 1, 'an unchanged product records nothing');
});

test('a demo reload records the products it puts back', async (t) => {
  const { ctx } = await buildTestApp(t);
  const today = new Date('2026-05-20T12:00:00Z');
  await loadDemo(ctx.db, { fiscalTokenKey: FISCAL_KEY, today });
  const product = await ctx.db
    .selectFrom('products')
    .select(['id', 'name'])
    .orderBy('id')
    .executeTakeFirstOrThrow();
  await ctx.db.updateTable('products').set({ name: 'Renamed' }).where('id', '=', product.id).execute();
  await loadDemo(ctx.db, { fiscalTokenKey: FISCAL_KEY, today });
  const edits = await ctx.db
    .selectFrom('product_changes')
    .select(['product_id', 'operation', 'actor', 'changes'])
    .where('operation', '=', 'edit')
    .execute();
  assert.deepEqual(edits, [
    {
      product_id: product.id,
      operation: 'edit',
      actor: { kind: 'import' },
      changes: [{ field: 'name', from: 'Renamed', to: product.name }],
    },
  ]);
});
