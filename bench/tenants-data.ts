// The tenants data set: 1,000 restaurants seeded in set-based SQL (one statement per table for
// all of them), in one transaction. Catalog sizes follow a seeded spread: median about 150
// products (log-normal, 20 to 700), one in ten from 800 to 1,500, five of 2,000, dealt in a
// seeded random order so that any first n restaurants follow the same spread. Each restaurant has
// categories (one in ten lunch-only), add-on groups and options, combos, product schedules, fiscal
// codes, a default brand with a fiscal token, about 420 cash-flow entries in 92 days and 180
// received NF-e (60 listed). The rows are the same on every run (explicit ids, setseed()).
import { sql } from 'kysely';
import type { Db } from '../src/db/database.ts';
import { FISCAL_COLUMNS } from '../src/db/fiscal-columns.ts';
import { encryptSecret } from '../src/lib/encryption.ts';
import { FISCAL_TOKEN, NFE_WINDOW } from './data-nfe.ts';

export const TENANTS = 1_000;
export const CASH_WINDOW = { start_date: '2026-01-01', end_date: '2026-03-31' };
export { NFE_WINDOW };

export type Tenant = { id: number; products: number };

/** mulberry32: a small seeded PRNG, so the spread is the same on every run. */
export function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Restaurant ids 1..TENANTS with their catalog sizes. */
export function tenants(): Tenant[] {
  const random = prng(25);
  const sizes: number[] = [];
  for (let i = 0; i < 5; i++) sizes.push(2_000);
  for (let i = 0; i < 95; i++) sizes.push(800 + Math.floor(random() * 700));
  while (sizes.length < TENANTS) {
    // Box-Muller: log-normal around 150 with sigma 0.6.
    const normal = Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
    sizes.push(Math.min(700, Math.max(20, Math.round(150 * Math.exp(0.6 * normal)))));
  }
  for (let i = sizes.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [sizes[i], sizes[j]] = [sizes[j], sizes[i]];
  }
  return sizes.map((products, i) => ({ id: i + 1, products }));
}

/** The restaurant whose catalog size is nearest `size` (the hot one is nearest 150 products). */
export const closest = (list: readonly Tenant[], size: number): Tenant =>
  list.reduce((best, t) => (Math.abs(t.products - size) < Math.abs(best.products - size) ? t : best));

export const catalogBase = (restaurantId: number) => restaurantId * 100_000;

const PER_CATEGORY = 25;
const LUNCH = JSON.stringify([1, 2, 3, 4, 5].map((weekday) => ({ weekday, start: '11:00', end: '15:00' })));
const FRIDAY_NIGHT = JSON.stringify([{ weekday: 5, start: '18:00', end: '23:30' }]);
const FISCAL = FISCAL_COLUMNS.slice(0, 6);
const STAMP = "timestamptz '2026-01-10T12:00:00Z'";
const money = (min: number, max: number) => `round((${min} + random() * ${max - min})::numeric, 2)`;
const cats = `(ceil(t.products / ${PER_CATEGORY}.0))::int`;
const groups = 'greatest(6, round(t.products * 0.03))::int';

function statements(fiscalToken: string): string[] {
  const base = 't.id * 100000';
  return [
    `insert into restaurants (id, name, timezone, accepts_scheduling)
      select id, 'Restaurante ' || id, 'America/Sao_Paulo', true from tenants`,
    `insert into brands (id, restaurant_id, name, fantasy_name, cnpj, is_default, fiscal_token_encrypted)
      select ${base} + 1, t.id, 'Marca ' || t.id, 'Marca', '01234567000189', true, '${fiscalToken}' from tenants t`,
    `insert into product_categories (id, restaurant_id, brand_id, name, position, available, kind, schedules)
      select ${base} + i + 1, t.id, ${base} + 1,
        case when i = ${cats} then 'Embalagens' else 'Categoria ' || (i + 1) end, i + 1, i % 80 <> 40,
        case when i = ${cats} then 'packaging' else 'regular' end,
        case when i % 10 = 5 and i < ${cats} then '${LUNCH}' else '[]' end::jsonb
      from tenants t cross join lateral generate_series(0, ${cats}) i`,
    `insert into complement_categories (id, restaurant_id, name, min, max)
      select ${base} + g + 1, t.id, 'Complemento ' || (g + 1), case when g % 3 = 0 then 1 else 0 end, 1 + g % 3
      from tenants t cross join lateral generate_series(0, ${groups} - 1) g`,
    `insert into complement_options (restaurant_id, complement_category_id, name, price, delivery_price,
        available, position)
      select g.restaurant_id, g.id, 'Opção ' || k || ' do ' || g.name, ${money(0, 12)},
        case when random() < 0.3 then ${money(0, 14)} end, random() > 0.1, k
      from complement_categories g cross join lateral generate_series(1, 3 + (g.id % 4)) k
      order by g.id, k`,
    `insert into products (id, restaurant_id, product_category_id, brand_id, position, name, description,
        price, price_promotion, delivery_price, delivery_price_promotion, available, available_in_delivery,
        sold_off, use_weight, has_starting_price, is_combo, combo_min_items, schedules,
        ${FISCAL.join(', ')}, created_at, updated_at)
      select ${base} + i + 1, t.id, ${base} + 1 + i / ${PER_CATEGORY}, ${base} + 1, 1 + i % ${PER_CATEGORY},
        'Produto ' || (i + 1) || ' à moda da casa',
        case when i % 4 <> 0 then 'Descrição do produto ' || (i + 1) || ', com ingredientes selecionados' end,
        ${money(5, 120)}, case when i % 7 = 0 then ${money(4, 100)} end,
        case when i % 3 = 0 then ${money(6, 130)} end, case when i % 11 = 0 then ${money(5, 110)} end,
        i % 40 <> 1, i % 45 <> 2, i % 50 = 3, i % 60 = 4, i % 13 = 5, i % 100 = 6,
        case when i % 100 = 6 then 2 end, case when i % 90 = 7 then '${FRIDAY_NIGHT}' else '[]' end::jsonb,
        ${FISCAL.map((_, k) => `'0${k}' || (i % 97)`).join(', ')}, ${STAMP}, ${STAMP}
      from tenants t cross join lateral generate_series(0, t.products - 1) i`,
    `insert into products (id, restaurant_id, product_category_id, brand_id, position, name, price,
        created_at, updated_at)
      select ${base} + t.products + k, t.id, ${base} + ${cats} + 1, ${base} + 1, k, 'Caixa ' || k, 1.50,
        ${STAMP}, ${STAMP}
      from tenants t cross join generate_series(1, 10) k`,
    `insert into product_complement_categories (restaurant_id, product_id, complement_category_id, position)
      select t.id, ${base} + i + 1, ${base} + 1 + (i * 7 + k) % ${groups}, k
      from tenants t cross join lateral generate_series(0, t.products - 1) i
      cross join lateral generate_series(0, i % 4 - 1) k`,
    `insert into combo_items (restaurant_id, combo_product_id, item_product_id, position)
      select t.id, ${base} + i + 1, ${base} + i + 1 + k, k
      from tenants t cross join lateral generate_series(6, t.products - 4, 100) i cross join generate_series(1, 3) k`,
    ...['suppliers', 'bank_accounts', 'payment_methods', 'cost_centres'].map(
      (table) => `insert into ${table} (id, restaurant_id, name)
        select t.id * 1000 + g, t.id, '${table} ' || g from tenants t cross join generate_series(1, 20) g`,
    ),
    // 400 main entries in the 92 days of CASH_WINDOW, one in 40 an invoice or title with two items.
    `insert into cash_flows (restaurant_id, entry_type, description, value, due_date, competence_date, paid,
        paid_at, is_earning, provider_id, bank_account_id, payment_method_id, category_subcategory_id,
        counts_for_result)
      select t.id, case when g % 80 = 0 then 'invoice' when g % 40 = 0 then 'title' else 'standalone' end,
        'Lançamento ' || g, round((random() * 5000)::numeric, 2) + 0.01, d, d - (g % 30), g % 5 < 2,
        case when g % 5 < 2 then (d + time '12:00') at time zone 'UTC' end, g % 9 < 4,
        t.id * 1000 + 1 + g % 20, t.id * 1000 + 1 + g % 5, t.id * 1000 + 1 + g % 8, t.id * 1000 + 1 + g % 20,
        g % 40 <> 0
      from tenants t cross join lateral (
        select g, date '${CASH_WINDOW.start_date}' + (g * 89 % 90) as d from generate_series(1, 400) g) s
      order by t.id, d, g`,
    `insert into cash_flows (restaurant_id, parent_id, entry_type, description, value, due_date,
        competence_date, paid, paid_at, is_earning, provider_id, bank_account_id, payment_method_id,
        category_subcategory_id, counts_for_result)
      select c.restaurant_id, c.id, case c.entry_type when 'invoice' then 'invoice_item' else 'title_entry' end,
        'Item ' || k || ' de ' || c.id, case when k = 1 then round(c.value / 2, 2) else c.value - round(c.value / 2, 2) end,
        c.due_date, c.competence_date, c.paid, c.paid_at, c.is_earning, c.provider_id, c.bank_account_id,
        c.payment_method_id, c.category_subcategory_id, true
      from cash_flows c cross join generate_series(1, 2) k
      where c.parent_id is null and c.entry_type <> 'standalone' order by c.id, k`,
    // Three notes per listed one: confirmed in NFE_WINDOW (listed), pending in it, and one before it.
    `insert into nfe_received (restaurant_id, brand_id, access_key, series, state, type, issuer_name,
        issuer_document, total, situation, complete, manifestation_type, manifested_at, version, issued_at)
      select t.id, case when g % 10 <> 0 then ${base} + 1 end,
        '352601' || lpad((12345678000100 + g % 20)::text, 14, '0') || '55001' || lpad((t.id * 1000 + g)::text, 9, '0')
          || '1' || lpad(g::text, 8, '0') || (g % 10),
        '1', 'SP', '1', 'Fornecedor ' || (g % 20), lpad((12345678000100 + g % 20)::text, 14, '0'),
        round((10 + (g * 7919) % 500000 / 100.0)::numeric, 2), 'autorizada', g % 2 = 0,
        case g % 3 when 0 then 'confirmacao' when 1 then 'ciencia' end,
        case when g % 3 = 0 then timestamptz '2026-04-01T12:00:00Z' end, 1,
        case when g % 3 = 2 then timestamptz '2025-10-01T00:00:00Z' else timestamptz '${NFE_WINDOW.start_date}' end
          + g * interval '40000 seconds'
      from tenants t cross join generate_series(1, 180) g order by t.id, g`,
  ];
}

const SEQUENCED = [
  'restaurants',
  'brands',
  'product_categories',
  'complement_categories',
  'complement_options',
  'products',
  'suppliers',
  'bank_accounts',
  'payment_methods',
  'cost_centres',
  'cash_flows',
  'nfe_received',
];

/** Seeds every tenant into an empty, migrated database, in one transaction. */
export async function seedTenants(db: Db, fiscalTokenKey: string): Promise<void> {
  const list = tenants();
  const token = encryptSecret(FISCAL_TOKEN, fiscalTokenKey);
  await db.transaction().execute(async (trx) => {
    const run = (query: string) => sql.raw(query).execute(trx);
    await run('set local session_replication_role = replica');
    await run('select setseed(0.25)');
    await run('create temporary table tenants (id int primary key, products int not null) on commit drop');
    await run(`insert into tenants values ${list.map((t) => `(${t.id}, ${t.products})`).join(', ')}`);
    for (const statement of statements(token)) await run(statement);
    for (const table of SEQUENCED) {
      await run(`select setval(pg_get_serial_sequence('${table}', 'id'), coalesce(max(id), 0) + 1, false)
        from ${table}`);
    }
  });
  await sql`vacuum analyze`.execute(db);
}
