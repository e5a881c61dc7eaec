// The format's value rules: each rejection names collection, index and field, and writes nothing.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createTestDatabase } from '../support/database.ts';
import { assertRejected, load, world, worldWith } from './world.ts';

type File = Record<string, any[]>;

const CASES: [string, string, (f: File) => void][] = [
  [
    'a file that is not an object is rejected',
    '(file): must be a JSON object with the collections of the import format',
    () => {},
  ],
  [
    'a collection that is not an array is rejected',
    'products: must be an array',
    (f) => {
      (f as any).products = { id: 1 };
    },
  ],
  [
    'an unknown field is rejected, not ignored',
    'products[1].colour: unknown field',
    (f) => {
      f.products[1].colour = 'red';
    },
  ],
  [
    'a field named as a member of every object is unknown too, not ignored',
    'products[1].constructor: unknown field',
    (f) => {
      f.products[1].constructor = 'red';
    },
  ],
  [
    'a __proto__ field is unknown, not ignored',
    'products[1].__proto__: unknown field',
    (f) => {
      f.products[1] = JSON.parse(JSON.stringify(f.products[1]).replace('{', '{"__proto__": {"price": 1},'));
    },
  ],
  [
    'a nested field named as a member of every object is unknown',
    'products[0].fiscal.toString: unknown field',
    (f) => {
      f.products[0].fiscal.toString = 'x';
    },
  ],
  [
    'a required field must be present',
    'products[0].name: is required',
    (f) => {
      delete f.products[0].name;
    },
  ],
  [
    'null is rejected where the field is not nullable',
    'products[0].price: must not be null',
    (f) => {
      f.products[0].price = null;
    },
  ],
  [
    'a price with three decimals is rejected (number)',
    'products[0].price: must be a number or a decimal string with at most 2 decimals',
    (f) => {
      f.products[0].price = 1.005;
    },
  ],
  [
    'a price with three decimals is rejected (string)',
    'products[0].delivery_price: must be a number or a decimal string with at most 2 decimals',
    (f) => {
      f.products[0].delivery_price = '45.905';
    },
  ],
  [
    'a formatted currency string is rejected',
    'cash_flows[1].value: must be a number or a decimal string with at most 2 decimals',
    (f) => {
      f.cash_flows[1].value = 'R$ 1.500,00';
    },
  ],
  [
    'money beyond numeric(12,2) is rejected',
    'products[0].price: must be less than 10000000000 in absolute value',
    (f) => {
      f.products[0].price = 10000000000;
    },
  ],
  [
    'a negative price is rejected',
    'products[1].price: must be at least 0',
    (f) => {
      f.products[1].price = -1;
    },
  ],
  [
    'a date that is not on the calendar is rejected',
    'cash_flows[1].due_date: must be a calendar date YYYY-MM-DD',
    (f) => {
      f.cash_flows[1].due_date = '2026-02-30';
    },
  ],
  [
    'a date in another format is rejected',
    'cash_flows[0].competence_date: must be a calendar date YYYY-MM-DD',
    (f) => {
      f.cash_flows[0].competence_date = '28/02/2026';
    },
  ],
  [
    'an instant without a time zone is rejected',
    'nfe_received[0].issued_at: must be an ISO 8601 date-time with Z or an offset',
    (f) => {
      f.nfe_received[0].issued_at = '2026-01-10T13:00:00';
    },
  ],
  [
    'an instant with an impossible month is rejected',
    'products[0].updated_at: must be an ISO 8601 date-time with Z or an offset',
    (f) => {
      f.products[0].updated_at = '2026-13-10T13:00:00Z';
    },
  ],
  [
    'an instant with an offset beyond 15:59 is rejected (PostgreSQL cannot read it)',
    'cash_flows[0].paid_at: must be an ISO 8601 date-time with Z or an offset',
    (f) => {
      f.cash_flows[0].paid_at = '2026-03-10T15:00:00+16:00';
    },
  ],
  [
    'an instant that is in the year 10000 in UTC is rejected (the API cannot write it as ISO 8601)',
    'nfe_received[0].manifested_at: must be before 10000-01-01 in UTC',
    (f) => {
      f.nfe_received[0].manifested_at = '9999-12-31T23:00:00-05:00';
    },
  ],
  [
    'an instant whose fraction rounds into the year 10000 is rejected',
    'cash_flows[0].paid_at: must be before 10000-01-01 in UTC',
    (f) => {
      f.cash_flows[0].paid_at = '9999-12-31T23:59:59.9999Z';
    },
  ],
  [
    'a weekday outside 0-6 is rejected',
    'product_categories[0].schedules[0].weekday: must be a whole number from 0 to 6',
    (f) => {
      f.product_categories[0].schedules[0].weekday = 7;
    },
  ],
  [
    'a time that is not HH:MM is rejected',
    'product_categories[0].schedules[0].start: must be HH:MM from 00:00 to 23:59',
    (f) => {
      f.product_categories[0].schedules[0].start = '9:00';
    },
  ],
  [
    'a window whose end is not after its start is rejected',
    'products[1].schedules[1].end: must be after start',
    (f) => {
      f.products[1].schedules = [
        { weekday: 5, start: '18:00', end: '24:00' },
        { weekday: 6, start: '02:00', end: '00:30' },
      ];
    },
  ],
  [
    'an unknown field in a schedule window is rejected',
    'product_categories[0].schedules[0].day: unknown field',
    (f) => {
      f.product_categories[0].schedules[0].day = 'friday';
    },
  ],
  [
    'a category kind outside the three kinds is rejected',
    'product_categories[1].kind: must be one of regular, packaging, marketplace_mirror',
    (f) => {
      f.product_categories[1].kind = 'special';
    },
  ],
  [
    'an id that is not a positive whole number is rejected',
    'suppliers[0].id: must be a whole number from 1 to 2147483647',
    (f) => {
      f.suppliers[0].id = 0;
    },
  ],
  [
    'the same id twice in a collection is rejected',
    'products[1].id: product 1000 is also at products[0].id',
    (f) => {
      f.products[1].id = 1000;
    },
  ],
  [
    'an item id equal to a main entry id is rejected',
    'cash_flows[1].id: cash flow 5003 is also at cash_flows[0].items[1].id',
    (f) => {
      f.cash_flows[0].items[1].id = 5003;
    },
  ],
  [
    'a code given as a number is rejected (leading zeros would be lost)',
    'brands[0].cnpj: must be a string',
    (f) => {
      f.brands[0].cnpj = 1234567000189;
    },
  ],
  [
    'a fiscal attribute given as a number is rejected',
    'products[0].fiscal.ncm: must be a string or null (codes keep their leading zeros)',
    (f) => {
      f.products[0].fiscal.ncm = 2013000;
    },
  ],
  [
    'fcp_percentual, serialized as a numeric string (contract 2.3), takes only plain decimal text',
    'products[0].fiscal.fcp_percentual: must be a numeric string, such as "2.5"',
    (f) => {
      f.products[0].fiscal.fcp_percentual = '2,5';
    },
  ],
  [
    'a fiscal attribute of more than 255 characters is rejected',
    'products[0].fiscal.cest: must be at most 255 characters',
    (f) => {
      f.products[0].fiscal.cest = '1'.repeat(256);
    },
  ],
  [
    'an unknown fiscal attribute is rejected',
    'products[0].fiscal.ncn: unknown field',
    (f) => {
      f.products[0].fiscal.ncn = '02013000';
    },
  ],
  [
    'an unknown time zone is rejected',
    'restaurants[1].timezone: must be an IANA time zone such as America/Sao_Paulo',
    (f) => {
      f.restaurants[1].timezone = 'America/Atlantis';
    },
  ],
  [
    'a whitespace-only product name is rejected',
    'products[1].name: must not be empty',
    (f) => {
      f.products[1].name = '   ';
    },
  ],
  [
    'a product name over 255 characters is rejected',
    'products[1].name: must be at most 255 characters',
    (f) => {
      f.products[1].name = 'x'.repeat(256);
    },
  ],
  [
    'a description over 255 characters outside the BMP is rejected (characters are code points)',
    'products[1].description: must be at most 255 characters',
    (f) => {
      f.products[1].description = '🍕'.repeat(256);
    },
  ],
  [
    'an access key that is not 44 digits is rejected',
    'nfe_received[0].access_key: must be a string of 44 digits',
    (f) => {
      f.nfe_received[0].access_key = '3526011234567800019955001000001234100001234';
    },
  ],
  [
    'a NUL character in a text is rejected (PostgreSQL cannot store it)',
    'cash_flows[1].description: must not contain NUL characters',
    (f) => {
      f.cash_flows[1].description = 'Venda\u0000balcao';
    },
  ],
  [
    'a lone surrogate in a text is rejected (PostgreSQL cannot store it)',
    'suppliers[0].name: must be well-formed Unicode (a lone surrogate cannot be stored)',
    (f) => {
      f.suppliers[0].name = 'Distribuidora \ud800Sul';
    },
  ],
  [
    'a NUL character in a fiscal attribute is rejected',
    'products[0].fiscal.ncm: must not contain NUL characters',
    (f) => {
      f.products[0].fiscal.ncm = '0201\u00003000';
    },
  ],
  [
    'a NUL character in a key of a JSON value is rejected',
    'nfe_received[0].sped["bloco\\u0000"]: must not contain NUL characters',
    (f) => {
      f.nfe_received[0].sped = { 'bloco\u0000': 1 };
    },
  ],
  [
    'a lone surrogate in a string inside a JSON value is rejected',
    'nfe_received[0].sped["linhas"][1]: must be well-formed Unicode (a lone surrogate cannot be stored)',
    (f) => {
      f.nfe_received[0].sped = { linhas: ['ok', 'C100|\udc00'] };
    },
  ],
  [
    'a JSON value nested deeper than 100 arrays or objects is rejected (it cannot be written back as JSON)',
    `nfe_received[0].sped${'[0]'.repeat(100)}: must not nest arrays and objects more than 100 deep`,
    (f) => {
      let sped: unknown = 'C100';
      for (let i = 0; i < 10_000; i++) sped = [sped];
      f.nfe_received[0].sped = sped;
    },
  ],
];

test('import value rules', async (t) => {
  const database = await createTestDatabase();
  t.after(() => database.close());
  await load(database.db, world());

  for (const [name, issue, change] of CASES) {
    await t.test(name, async () => {
      const file = name.startsWith('a file that is not') ? ['not', 'an', 'object'] : worldWith(change);
      await assertRejected(database.db, file, issue);
    });
  }

  await t.test('an unknown collection is rejected', async () => {
    const file = { ...worldWith(() => {}), menus: [] };
    await assertRejected(
      database.db,
      file,
      'menus: unknown collection (known: restaurants, brands, product_categories, complement_categories, products, suppliers, bank_accounts, payment_methods, cost_centres, cash_flows, nfe_received, api_keys, oauth_clients)',
    );
  });

  await t.test('every problem of a file is listed at once', async () => {
    const file = worldWith((f) => {
      f.products[0].price = 1.005;
      f.cash_flows[1].due_date = '2026-02-30';
    });
    const err = await load(database.db, file).catch((e) => e);
    assert.deepEqual(err.issues, [
      'products[0].price: must be a number or a decimal string with at most 2 decimals',
      'cash_flows[1].due_date: must be a calendar date YYYY-MM-DD',
    ]);
  });

  await t.test(
    'money as a decimal string, a whole number or a number with two decimals is accepted',
    async () => {
      const file = world();
      file.products[1].price = '44.9';
      file.products[1].price_promotion = 0;
      file.cash_flows[1].value = '0001500.00';
      await load(database.db, file);
      const row = await database.db
        .selectFrom('products')
        .select(['price', 'price_promotion'])
        .where('id', '=', 1001)
        .executeTakeFirstOrThrow();
      assert.deepEqual(row, { price: '44.90', price_promotion: '0.00' });
    },
  );

  await t.test(
    'names and descriptions of 255 characters outside the BMP are accepted, as the API accepts and exports them',
    async () => {
      const file = world();
      const long = '🍕'.repeat(255);
      file.products[1].name = long;
      file.products[1].description = long;
      file.product_categories[0].name = long;
      file.complement_categories[0].options[0].name = long;
      file.brands[0].fantasy_name = long;
      await load(database.db, file);
      const row = await database.db
        .selectFrom('products')
        .select(['name', 'description'])
        .where('id', '=', 1001)
        .executeTakeFirstOrThrow();
      assert.deepEqual(row, { name: long, description: long });
      await load(database.db, world());
    },
  );

  await t.test(
    'a window ending at 24:00 and one starting at 00:00 describe a night crossing midnight',
    async () => {
      const file = world();
      file.products[1].schedules = [
        { weekday: 5, start: '18:00', end: '24:00' },
        { weekday: 6, start: '00:00', end: '02:00' },
      ];
      await load(database.db, file);
      const row = await database.db
        .selectFrom('products')
        .select('schedules')
        .where('id', '=', 1001)
        .executeTakeFirstOrThrow();
      assert.deepEqual(row.schedules, file.products[1].schedules);
    },
  );
});
