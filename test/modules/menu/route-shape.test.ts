import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { FISCAL_COLUMNS } from '../../../src/db/fiscal-columns.ts';
import { menuResponse } from '../../../src/modules/menu/schemas.ts';
import { buildTestApp } from '../../support/app.ts';
import { findProduct, menuGet, menuWorld } from '../../support/menu-world.ts';
import { bearerFor } from '../../support/tokens.ts';

const FISCAL = { ncm: '02109900', cfop: '5102', csosn: '0102', aliquota: '18,00', icms_valor: '' };

function validator() {
  const ajv = new Ajv({ allErrors: true, strict: false });
  (addFormats as unknown as (a: Ajv) => void)(ajv);
  return ajv.compile(menuResponse);
}

test('the menu response shape', async (t) => {
  const { app, ctx } = await buildTestApp(t);
  const world = await menuWorld(ctx.db);
  const pizzas = await world.category({ name: 'Pizzas', position: 1 });
  const margherita = await world.product(pizzas, {
    name: 'Margherita',
    description: 'Molho, muçarela e manjericão',
    position: 1,
    price: '42.90',
    delivery_price: '45.90',
    fiscal_group_id: 77,
    cost: '12.34',
    ...FISCAL,
  });
  const borda = await world.group({
    name: 'Borda',
    min: 1,
    max: 1,
    options: [
      { name: 'Catupiry', price: '5.00' },
      { name: 'Cheddar', price: '6.00', delivery_price: '7.50' },
    ],
  });
  await world.link(margherita, [borda.id]);
  const { authorization } = await bearerFor(ctx.db, [world.restaurantId], ['menu:read']);
  const isValid = validator();

  await t.test('a product carries exactly the members of menu.md, in its order', async () => {
    const res = await menuGet(app, authorization, 'channel=delivery&at=2026-03-06T21:00:00Z');
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^application\/json/);
    assert.equal(Number(res.headers['content-length']), res.rawPayload.length);
    const body = res.json();
    assert.ok(isValid(body), JSON.stringify(isValid.errors));
    assert.deepEqual(Object.keys(body), ['restaurant_id', 'channel', 'evaluated_at', 'categories']);
    assert.equal(body.restaurant_id, world.restaurantId);
    assert.equal(body.channel, 'delivery');
    assert.equal(body.evaluated_at, '2026-03-06T21:00:00.000Z');
    assert.deepEqual(body.categories[0], {
      id: pizzas,
      name: 'Pizzas',
      position: 1,
      available: true,
      products: [
        {
          id: margherita,
          product_category_id: pizzas,
          name: 'Margherita',
          description: 'Molho, muçarela e manjericão',
          position: 1,
          use_weight: false,
          has_starting_price: false,
          charge_service_tax: true,
          pricing: {
            mode: 'fixed',
            is_combo: false,
            price: '42.90',
            price_promotion: null,
            delivery_price: '45.90',
            delivery_price_promotion: null,
            resolved: { base: '45.90', source: 'delivery_price', minimum: '50.90' },
          },
          availability: {
            available: true,
            available_in_delivery: true,
            sold_out: false,
            resolved: { available: true, reason: null, schedulable: false },
          },
          complement_categories: [
            {
              id: borda.id,
              name: 'Borda',
              min: 1,
              max: 1,
              required: true,
              options: [
                { id: borda.options[0], name: 'Catupiry', price: '5.00', available: true },
                { id: borda.options[1], name: 'Cheddar', price: '7.50', available: true },
              ],
            },
          ],
        },
      ],
    });
  });

  await t.test('the channel defaults to in_store and evaluated_at to now', async () => {
    const before = Date.now();
    const body = (await menuGet(app, authorization)).json();
    assert.equal(body.channel, 'in_store');
    const evaluated = Date.parse(body.evaluated_at);
    assert.ok(evaluated >= before - 1 && evaluated <= Date.now(), body.evaluated_at);
    assert.equal(findProduct(body, margherita)?.complement_categories[0].options[1].price, '6.00');
  });

  await t.test(
    'fiscal appears only with include_fiscal_info=true, with all 32 attributes in contract order',
    async () => {
      const plain = (await menuGet(app, authorization)).json();
      assert.equal('fiscal' in findProduct(plain, margherita)!, false);
      const off = (await menuGet(app, authorization, 'include_fiscal_info=false')).json();
      assert.equal('fiscal' in findProduct(off, margherita)!, false);
      const res = await menuGet(app, authorization, 'include_fiscal_info=true');
      const product = findProduct(res.json(), margherita)!;
      assert.ok(isValid(res.json()), JSON.stringify(isValid.errors));
      assert.deepEqual(Object.keys(product.fiscal), [...FISCAL_COLUMNS]);
      assert.deepEqual(product.fiscal, {
        ...Object.fromEntries(FISCAL_COLUMNS.map((c) => [c, null])),
        ...FISCAL,
      });
      assert.equal(Object.keys(product).at(-1), 'fiscal');
    },
  );

  await t.test(
    'a catalog first loaded for a read without fiscal is loaded again with it by a read that asks, conditional or not',
    async () => {
      for (const conditional of [false, true]) {
        // A new catalog version, first read without fiscal: the instance holds it without.
        await ctx.db
          .updateTable('products')
          .set({ description: `v${conditional}` })
          .where('id', '=', margherita)
          .execute();
        const plain = await menuGet(app, authorization);
        assert.equal('fiscal' in findProduct(plain.json(), margherita)!, false);
        const res = await app.inject({
          url: '/v1/menu?include_fiscal_info=true',
          headers: {
            authorization,
            ...(conditional ? { 'if-none-match': plain.headers.etag as string } : {}),
          },
        });
        assert.equal(res.statusCode, 200, res.body);
        assert.deepEqual(findProduct(res.json(), margherita)!.fiscal, {
          ...Object.fromEntries(FISCAL_COLUMNS.map((c) => [c, null])),
          ...FISCAL,
        });
      }
    },
  );

  await t.test('the menu never carries fiscal_info nor internal fields', async () => {
    const res = await menuGet(app, authorization, 'include_fiscal_info=true&channel=delivery');
    for (const field of ['fiscal_info', 'fiscal_group_id', 'cost', 'schedules', 'sold_off', 'brand_id']) {
      assert.equal(res.body.includes(`"${field}"`), false, field);
    }
    assert.equal('restaurant_id' in findProduct(res.json(), margherita)!, false);
    assert.doesNotMatch(res.body, /12\.34/);
  });
});
