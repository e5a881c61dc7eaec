// The demo data set: loaded through the importer, deterministic, with the promised shape.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import { buildDemoData, demoKeys, loadDemo } from '../../src/demo/demo.ts';
import { accessKey } from '../../src/demo/documents.ts';
import { SCOPES } from '../../src/http/principal.ts';
import { decryptSecret } from '../../src/lib/encryption.ts';
import { createTestDatabase } from '../support/database.ts';
import { FISCAL_KEY } from './world.ts';

const TODAY = new Date('2026-05-20T12:00:00Z');

function validAccessKey(key: string): boolean {
  let sum = 0;
  for (let i = 0; i < 43; i++) sum += Number(key[42 - i]) * (2 + (i % 8));
  const rest = sum % 11;
  return Number(key[43]) === (rest < 2 ? 0 : 11 - rest);
}

test('the demo data set', async (t) => {
  const database = await createTestDatabase();
  t.after(() => database.close());
  const { db } = database;
  const { counts, api_keys } = await loadDemo(db, { fiscalTokenKey: FISCAL_KEY, today: TODAY });
  const one = async <T>(query: ReturnType<typeof sql<T>>) => (await query.execute(db)).rows[0];

  await t.test('is the same on every build except for the API keys', () => {
    const keys = demoKeys();
    assert.deepEqual(buildDemoData({ today: TODAY, keys }), buildDemoData({ today: TODAY, keys }));
    assert.notEqual(demoKeys()[0].api_key, keys[0].api_key, 'keys are made fresh');
  });

  await t.test(
    'has two restaurants in two time zones, one accepting scheduled orders, and three brands',
    async () => {
      assert.equal(counts.restaurants, 2);
      const rows = await db
        .selectFrom('restaurants')
        .select(['timezone', 'accepts_scheduling'])
        .orderBy('id')
        .execute();
      assert.deepEqual(rows, [
        { timezone: 'America/Sao_Paulo', accepts_scheduling: true },
        { timezone: 'America/Manaus', accepts_scheduling: false },
      ]);
      const brands = await db
        .selectFrom('brands')
        .select(['restaurant_id', 'fiscal_token_encrypted'])
        .execute();
      assert.deepEqual(brands.map((b) => b.restaurant_id).sort(), [1, 1, 2]);
      for (const b of brands)
        assert.match(decryptSecret(b.fiscal_token_encrypted!, FISCAL_KEY), /^demo-fiscal-token-/);
    },
  );

  await t.test('has about 60 products with the catalog features the menu resolves', async () => {
    assert.ok(counts.products >= 55 && counts.products <= 65, `${counts.products} products`);
    const p = await one(sql<Record<string, number>>`select
      count(*) filter (where price_promotion is not null)::int as promotions,
      count(*) filter (where delivery_price is not null)::int as delivery_prices,
      count(*) filter (where delivery_price_promotion is not null)::int as delivery_promotions,
      count(*) filter (where use_weight)::int as weight,
      count(*) filter (where has_starting_price)::int as starting_at,
      count(*) filter (where is_combo)::int as combos,
      count(*) filter (where jsonb_array_length(schedules) > 0)::int as scheduled,
      count(*) filter (where sold_off)::int as sold_off,
      count(*) filter (where removed_at is not null)::int as removed
      from products`);
    for (const [feature, n] of Object.entries(p)) assert.ok(n > 0, `no product with ${feature}`);
    const combo = await one(sql<{ n: number }>`select count(*)::int as n from combo_items`);
    assert.ok(combo.n >= 4);
    const kinds = await db
      .selectFrom('product_categories')
      .select('kind')
      .distinct()
      .orderBy('kind')
      .execute();
    assert.deepEqual(
      kinds.map((k) => k.kind),
      ['marketplace_mirror', 'packaging', 'regular'],
    );
    const scheduled = await one(
      sql<{
        n: number;
      }>`select count(*)::int as n from product_categories where jsonb_array_length(schedules) > 0`,
    );
    assert.ok(scheduled.n > 0);
    const groups = await one(sql<{ mandatory: number; optional: number }>`select
      count(*) filter (where min > 0)::int as mandatory, count(*) filter (where min = 0)::int as optional
      from complement_categories`);
    assert.ok(groups.mandatory > 0 && groups.optional > 0);
  });

  await t.test('has fiscal data with leading-zero codes', async () => {
    const row = await one(sql<
      Record<string, string>
    >`select ncm, cst, icms_origem, fcp_percentual from products
      where ncm = '02013000' and cst = '00' limit 1`);
    assert.deepEqual(row, { ncm: '02013000', cst: '00', icms_origem: '0', fcp_percentual: '2' });
  });

  await t.test(
    'has 300 cash-flow entries over four months: invoices and titles with items, paid and open, earnings and expenses, a few deleted',
    async () => {
      assert.equal(counts.cash_flows, 300);
      const c = await one(sql<Record<string, number>>`select
      count(distinct to_char(due_date, 'YYYY-MM'))::int as months,
      count(*) filter (where entry_type = 'invoice')::int as invoices,
      count(*) filter (where entry_type = 'title')::int as titles,
      count(*) filter (where paid)::int as paid,
      count(*) filter (where not paid)::int as open,
      count(*) filter (where is_earning)::int as earnings,
      count(*) filter (where not is_earning)::int as expenses,
      count(*) filter (where deleted_at is not null)::int as deleted
      from cash_flows where parent_id is null`);
      assert.equal(c.months, 4);
      for (const key of ['invoices', 'titles', 'paid', 'open', 'earnings', 'expenses'])
        assert.ok(c[key] > 5, key);
      assert.ok(c.deleted > 0 && c.deleted < 10);
      const sums = await one(sql<{ n: number }>`select count(*)::int as n from cash_flows p
      where p.entry_type in ('invoice', 'title')
      and p.value <> (select sum(i.value) from cash_flows i where i.parent_id = p.id)`);
      assert.equal(sums.n, 0, 'every parent equals the sum of its items');
    },
  );

  await t.test('has 40 received NF-e in every manifestation state, with valid access keys', async () => {
    assert.equal(counts.nfe_received, 40);
    const notes = await db
      .selectFrom('nfe_received')
      .select(['access_key', 'manifestation_type', 'canceled_at', 'is_stock_transfer', 'brand_id'])
      .execute();
    assert.deepEqual([...new Set(notes.map((n) => n.manifestation_type))].sort(), [
      'ciencia',
      'confirmacao',
      'desconhecimento',
      null,
    ]);
    assert.ok(notes.some((n) => n.canceled_at !== null));
    assert.equal(notes.filter((n) => n.is_stock_transfer).length, 1);
    assert.ok(notes.some((n) => n.brand_id === null));
    for (const n of notes) assert.ok(validAccessKey(n.access_key), n.access_key);
    assert.equal(new Set(notes.map((n) => n.access_key)).size, 40);
  });

  await t.test('builds access keys with the mod-11 check digit', () => {
    const key = accessKey({
      stateCode: '35',
      issuedAt: '2026-01-10T10:00:00-03:00',
      issuerCnpj: '12345678000195',
      series: 1,
      number: 1234,
      code: '00001234',
    });
    assert.equal(key.length, 44);
    assert.ok(validAccessKey(key));
  });

  await t.test('has an API key per restaurant with every scope and one partner key for both', async () => {
    assert.deepEqual(
      api_keys.map((k) => k.restaurant_ids),
      [[1], [2], [1, 2]],
    );
    for (const k of api_keys) {
      assert.deepEqual(k.scopes, SCOPES);
      assert.match(k.api_key, /^ck_test_[\w-]{40,}$/);
    }
    const stored = await db
      .selectFrom('api_key_restaurants')
      .select(['api_key_id', 'restaurant_id'])
      .orderBy('api_key_id')
      .orderBy('restaurant_id')
      .execute();
    assert.equal(stored.length, 4);
  });

  await t.test('loading it again replaces it: same counts, new keys', async () => {
    const again = await loadDemo(db, { fiscalTokenKey: FISCAL_KEY, today: TODAY });
    assert.deepEqual(again.counts, counts);
    assert.notEqual(again.api_keys[0].api_key, api_keys[0].api_key);
    const total = await one(
      sql<{ n: number }>`select count(*)::int as n from cash_flows where parent_id is null`,
    );
    assert.equal(total.n, 300);
  });
});
