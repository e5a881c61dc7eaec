import assert from 'node:assert/strict';
import { test } from 'node:test';
import { addProduct } from '../../support/catalog-world.ts';
import { catalogApp } from './helpers.ts';

test('PUT /v1/products/{productId}: body rules', async (t) => {
  const { put, post, bulk, app, world, ctx } = await catalogApp(t);
  const id = await addProduct(ctx.db, world.restaurantA, world.categories.pizzas, { name: 'Alvo' });
  const rejects = async (body: unknown, field: string, key = 'invalid_body') => {
    const res = await put(id, body);
    assert.equal(res.statusCode, 400, JSON.stringify(body));
    assert.equal(res.json().key, key, JSON.stringify(body));
    assert.ok(
      res.json().errors?.some((e: { field: string }) => e.field === field),
      `${JSON.stringify(body)} -> ${res.body}`,
    );
    return res.json();
  };

  await t.test('null is rejected for price, name, product_category_id and every boolean', async () => {
    for (const field of [
      'price',
      'name',
      'product_category_id',
      'available',
      'available_in_delivery',
      'sold_off',
      'use_weight',
      'has_starting_price',
      'charge_service_tax',
    ]) {
      await rejects({ [field]: null }, field);
    }
  });

  await t.test('a negative price is rejected on edit', async () => {
    for (const field of ['price', 'price_promotion', 'delivery_price', 'delivery_price_promotion']) {
      await rejects({ [field]: -0.01 }, field);
    }
  });

  await t.test('prices with more than two decimals, strings and exponent forms are rejected', async () => {
    for (const value of [1.005, 0.1 + 0.2, 12.345, '12.50', 'R$ 12,50', '12', 1e-7, true]) {
      await rejects({ price: value }, 'price');
      await rejects({ delivery_price: value }, 'delivery_price');
    }
  });

  await t.test('prices above numeric(12,2) are rejected, the largest one is accepted', async () => {
    await rejects({ price: 10000000000 }, 'price');
    await rejects({ price: 1e21 }, 'price');
    const res = await put(id, { price: 9999999999.99 });
    assert.equal(res.statusCode, 200);
    assert.equal(res.json().price, '9999999999.99');
  });

  await t.test('a price written in exponent notation within two decimals is a plain number', async () => {
    const res = await app.inject({
      method: 'PUT',
      url: `/v1/products/${id}`,
      headers: { ...world.auth.write, 'content-type': 'application/json' },
      payload: '{"price": 1.25e2}',
    });
    assert.equal(res.statusCode, 200);
    assert.equal(res.json().price, '125.00');
  });

  await t.test(
    'an empty or whitespace-only name is rejected in words, not by quoting a pattern',
    async () => {
      for (const name of ['', '   ', '\t\n']) {
        const body = await rejects({ name }, 'name');
        assert.ok(
          body.errors.some(
            (e: { message: string }) =>
              e.message ===
              'must have 1 to 255 characters once trimmed (not only spaces), e.g. Pizza Margherita',
          ),
          JSON.stringify(body.errors),
        );
      }
    },
  );

  await t.test('name and description hold 255 characters counted as characters, not bytes', async () => {
    const emoji = '🍕'.repeat(255);
    const ok = await put(id, { name: emoji, description: 'ã'.repeat(255) });
    assert.equal(ok.statusCode, 200);
    assert.equal(ok.json().name, emoji);
    await rejects({ name: '🍕'.repeat(256) }, 'name');
    await rejects({ description: 'ã'.repeat(256) }, 'description');
    await rejects({ description: '🍕'.repeat(256) }, 'description');
  });

  await t.test('the 255 limit applies to the trimmed name', async () => {
    const res = await put(id, { name: `  ${'a'.repeat(255)}  ` });
    assert.equal(res.statusCode, 200);
    assert.equal(res.json().name.length, 255);
  });

  await t.test('a NUL character is rejected instead of failing in the database', async () => {
    await rejects({ name: 'a\u0000b' }, 'name');
    await rejects({ fiscal_info: { ncm: '0\u0000' } }, 'fiscal_info.ncm');
  });

  await t.test(
    'a lone surrogate in any text field is 400 invalid_body naming the field, in the dry run and every write',
    async () => {
      const bodies: [Record<string, unknown>, string][] = [
        [{ name: 'x\ud800y' }, 'name'],
        [{ name: 'x\udfffy' }, 'name'],
        [{ description: '\ud83d' }, 'description'],
        [{ fiscal_info: { ncm: '0\udc00' } }, 'fiscal_info.ncm'],
      ];
      for (const [body, field] of bodies) {
        await rejects(body, field);
        const dry = await app.inject({
          method: 'PUT',
          url: `/v1/products/${id}?dry_run=true`,
          headers: world.auth.write,
          payload: body,
        });
        assert.equal(dry.statusCode, 400, dry.body);
        assert.ok(
          dry.json().errors.some((e: { field: string }) => e.field === field),
          dry.body,
        );
        const batch = await bulk([{ id, ...body }]);
        assert.equal(batch.statusCode, 400, batch.body);
        assert.ok(
          batch.json().errors.some((e: { field: string }) => e.field === `[0].${field}`),
          batch.body,
        );
        if (field.startsWith('fiscal_info')) continue;
        const created = await post({
          name: 'ok',
          product_category_id: world.categories.pizzas,
          price: 1,
          ...body,
        });
        assert.equal(created.statusCode, 400, created.body);
        assert.ok(
          created.json().errors.some((e: { field: string }) => e.field === field),
          created.body,
        );
      }
      assert.equal(
        (await put(id, { name: 'emoji \ud83c\udf55 ok' })).statusCode,
        200,
        'a whole pair is text',
      );
    },
  );

  await t.test('unknown fields are rejected naming the field', async () => {
    const body = await rejects({ price: 10, colour: 'red' }, 'colour');
    assert.deepEqual(body.errors, [{ field: 'colour', message: 'is not an accepted field' }]);
    await rejects({ is_combo: true }, 'is_combo');
    await rejects({ position: 1 }, 'position');
  });

  await t.test('read-only fields are rejected naming the field', async () => {
    for (const field of ['restaurant_id', 'created_at', 'updated_at', 'fiscal']) {
      const body = await rejects({ price: 10, [field]: field === 'fiscal' ? {} : 1 }, field);
      assert.match(body.errors[0].message, /read-only/);
    }
    const withId = await rejects({ id, price: 10 }, 'id');
    assert.match(withId.errors[0].message, /read-only/);
  });

  await t.test('the whole product response copied into the body is rejected', async () => {
    const current = (
      await app.inject({ method: 'GET', url: `/v1/products/${id}`, headers: world.auth.read })
    ).json();
    const res = await put(id, current);
    assert.equal(res.statusCode, 400);
    const fields = res.json().errors.map((e: { field: string }) => e.field);
    assert.ok(fields.includes('restaurant_id') && fields.includes('fiscal'));
  });

  await t.test('fiscal_info: null is rejected, values are strings or null', async () => {
    await rejects({ fiscal_info: null }, 'fiscal_info');
    await rejects({ fiscal_info: { aliquota: 18 } }, 'fiscal_info.aliquota');
    await rejects({ fiscal_info: { fcp_percentual: 2.5 } }, 'fiscal_info.fcp_percentual');
    await rejects({ fiscal_info: { ncm: false } }, 'fiscal_info.ncm');
    await rejects({ fiscal_info: 'ncm=123' }, 'fiscal_info');
  });

  await t.test('contract 2.3: fcp_percentual is serialized as a numeric string', async () => {
    for (const value of ['abc', '2,5', '', ' 2', '2.', '.5', '1e3', '2%']) {
      await rejects({ fiscal_info: { fcp_percentual: value } }, 'fiscal_info.fcp_percentual');
    }
    const batch = await bulk([{ id, fiscal_info: { fcp_percentual: '2,5' } }]);
    assert.equal(batch.statusCode, 400);
    assert.equal(batch.json().errors[0].field, '[0].fiscal_info.fcp_percentual');
    for (const value of ['2', '2.50', '0.1234', null]) {
      const res = await put(id, { fiscal_info: { fcp_percentual: value } });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.json().fiscal.fcp_percentual, value);
    }
    // Other text attributes keep what is registered, legacy commas and empty strings included.
    const text = await put(id, { fiscal_info: { aliquota: '18,00', cbenef: '' } });
    assert.equal(text.statusCode, 200, text.body);
    assert.equal(text.json().fiscal.aliquota, '18,00');
  });

  await t.test('a fiscal attribute holds at most 255 characters', async () => {
    const ok = await put(id, { fiscal_info: { cbenef: '🍕'.repeat(255) } });
    assert.equal(ok.statusCode, 200, ok.body);
    await rejects({ fiscal_info: { ncm: '0'.repeat(256) } }, 'fiscal_info.ncm');
    const batch = await bulk([{ id, fiscal_info: { cest: 'x'.repeat(31_000) } }]);
    assert.equal(batch.statusCode, 400);
    assert.equal(batch.json().errors[0].field, '[0].fiscal_info.cest');
  });

  await t.test('an unknown or read-only fiscal attribute is rejected', async () => {
    await rejects({ fiscal_info: { ncm: '1', colour: 'red' } }, 'fiscal_info.colour');
    await rejects({ fiscal_info: { fiscal_group_id: '5' } }, 'fiscal_info.fiscal_group_id');
  });

  await t.test('a body without an effective change is 400 product_changes_required', async () => {
    for (const body of [
      {},
      { expected_updated_at: '2026-01-10T12:00:00.000Z' },
      { fiscal_info: {} },
      { id },
      { id, expected_updated_at: '2026-01-10T12:00:00.000Z', fiscal_info: {} },
    ]) {
      const res = await put(id, body);
      assert.equal(res.statusCode, 400, JSON.stringify(body));
      assert.equal(res.json().key, 'product_changes_required', JSON.stringify(body));
    }
  });

  await t.test('a request without a body is 400 product_changes_required', async () => {
    const res = await app.inject({ method: 'PUT', url: `/v1/products/${id}`, headers: world.auth.write });
    assert.equal(res.statusCode, 400);
    assert.equal(res.json().key, 'product_changes_required');
  });

  await t.test('a body that is not an object is rejected', async () => {
    for (const body of [[{ price: 1 }], 'price=1', 12, null]) {
      const res = await app.inject({
        method: 'PUT',
        url: `/v1/products/${id}`,
        headers: { ...world.auth.write, 'content-type': 'application/json' },
        payload: JSON.stringify(body),
      });
      assert.equal(res.statusCode, 400, JSON.stringify(body));
    }
  });

  await t.test('an unparseable expected_updated_at is 400', async () => {
    for (const value of ['yesterday', '2026-13-01T00:00:00Z', '2026-01-10T12:00:00', 1768046400000, '']) {
      await rejects({ price: 1, expected_updated_at: value }, 'expected_updated_at');
    }
  });

  await t.test('product_category_id must be a positive integer', async () => {
    for (const value of [0, -1, 1.5, '3', 2147483648])
      await rejects({ product_category_id: value }, 'product_category_id');
  });

  await t.test('a product id that is not a positive integer is 400 invalid_parameter', async () => {
    for (const bad of ['abc', '0', '-1', '1.5', '99999999999']) {
      const res = await put(bad, { price: 1 });
      assert.equal(res.statusCode, 400, bad);
      assert.equal(res.json().key, 'invalid_parameter');
    }
  });

  await t.test('unknown query parameters are rejected', async () => {
    const res = await app.inject({
      method: 'PUT',
      url: `/v1/products/${id}?simulate=true`,
      headers: world.auth.write,
      payload: { price: 1 },
    });
    assert.equal(res.statusCode, 400);
    assert.equal(res.json().key, 'invalid_query');
  });

  await t.test('nothing of a rejected body is written', async () => {
    const before = (
      await app.inject({ method: 'GET', url: `/v1/products/${id}`, headers: world.auth.read })
    ).json();
    await put(id, { name: 'Mudou', price: 1.005 });
    const after = (
      await app.inject({ method: 'GET', url: `/v1/products/${id}`, headers: world.auth.read })
    ).json();
    assert.deepEqual(after, before);
  });
});
