// References: the referenced record exists in the file or in the database and belongs to the
// same restaurant; an upsert never moves a record to another restaurant.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createTestDatabase } from '../support/database.ts';
import { assertRejected, load, world, worldWith } from './world.ts';

type File = Record<string, any[]>;

const CASES: [string, string, (f: File) => void][] = [
  [
    'a record of a restaurant that does not exist is rejected',
    'brands[1].restaurant_id: restaurant 9 does not exist',
    (f) => {
      f.brands[1].restaurant_id = 9;
      f.brands[1].id = 90;
    },
  ],
  [
    'a product in a category that does not exist is rejected',
    'products[1].product_category_id: category 999 does not exist for restaurant 1',
    (f) => {
      f.products[1].product_category_id = 999;
    },
  ],
  [
    'a product in a category of another restaurant is rejected',
    'products[1].product_category_id: category 200 does not exist for restaurant 1',
    (f) => {
      f.products[1].product_category_id = 200;
    },
  ],
  [
    'an add-on group of another restaurant is rejected',
    'products[0].complement_category_ids[0]: add-on group 301 does not exist for restaurant 1',
    (f) => {
      f.products[0].complement_category_ids = [301];
    },
  ],
  [
    'a combo item of another restaurant is rejected',
    'products[2].combo.product_ids[1]: product 2000 does not exist for restaurant 1',
    (f) => {
      f.products[2].combo.product_ids = [1000, 2000];
    },
  ],
  [
    'a category linked to a brand of another restaurant is rejected',
    'product_categories[0].brand_id: brand 20 does not exist for restaurant 1',
    (f) => {
      f.product_categories[0].brand_id = 20;
    },
  ],
  [
    'a cash flow with a supplier of another restaurant is rejected',
    'cash_flows[0].provider_id: supplier 51 does not exist for restaurant 1',
    (f) => {
      f.cash_flows[0].provider_id = 51;
    },
  ],
  [
    'an item with a cost centre of another restaurant is rejected',
    'cash_flows[0].items[1].category_subcategory_id: cost centre 81 does not exist for restaurant 1',
    (f) => {
      f.cash_flows[0].items[1].category_subcategory_id = 81;
    },
  ],
  [
    'a cash flow with an unknown bank account is rejected',
    'cash_flows[1].bank_account_id: bank account 61 does not exist for restaurant 1',
    (f) => {
      f.cash_flows[1].bank_account_id = 61;
    },
  ],
  [
    'a cash flow with an unknown payment method is rejected',
    'cash_flows[1].payment_method_id: payment method 71 does not exist for restaurant 1',
    (f) => {
      f.cash_flows[1].payment_method_id = 71;
    },
  ],
  [
    'an NF-e of a brand of another restaurant is rejected',
    'nfe_received[0].brand_id: brand 20 does not exist for restaurant 1',
    (f) => {
      f.nfe_received[0].brand_id = 20;
    },
  ],
  [
    'an NF-e linked to a supplier of another restaurant is rejected',
    'nfe_received[0].provider_id: supplier 51 does not exist for restaurant 1',
    (f) => {
      f.nfe_received[0].provider_id = 51;
    },
  ],
  [
    'an API key for a restaurant that does not exist is rejected',
    'api_keys[0].restaurant_ids[1]: restaurant 9 does not exist',
    (f) => {
      f.api_keys[0].restaurant_ids = [1, 9];
    },
  ],
  [
    'an OAuth client for a restaurant that does not exist is rejected',
    'oauth_clients[0].restaurant_ids[0]: restaurant 8 does not exist',
    (f) => {
      f.oauth_clients[0].restaurant_ids = [8];
    },
  ],
  [
    'an upsert cannot move a record to another restaurant',
    'suppliers[0].restaurant_id: supplier 50 belongs to restaurant 1; an import cannot move it',
    (f) => {
      f.suppliers[0].restaurant_id = 2;
      f.cash_flows[0].provider_id = null;
      f.nfe_received[0].provider_id = null;
    },
  ],
  [
    'an upsert cannot move an add-on option to another restaurant',
    'complement_categories[1].options[1].id: add-on option 3001 belongs to restaurant 1; an import cannot move it',
    (f) => {
      f.complement_categories = [f.complement_categories[1]];
      f.complement_categories[0].options.push({ id: 3001, name: 'Catupiry', price: 5 });
      f.complement_categories.unshift({ id: 302, restaurant_id: 1, name: 'Extra' });
      f.products[0].complement_category_ids = [];
    },
  ],
];

test('import references', async (t) => {
  const database = await createTestDatabase();
  t.after(() => database.close());
  await load(database.db, world());

  for (const [name, issue, change] of CASES) {
    await t.test(name, () => assertRejected(database.db, worldWith(change), issue));
  }

  await t.test('a reference to a record of the same file is accepted', async () => {
    const file = {
      restaurants: [{ id: 3, name: 'Terceiro' }],
      product_categories: [{ id: 400, restaurant_id: 3, name: 'Novos' }],
      products: [{ id: 4000, restaurant_id: 3, product_category_id: 400, name: 'Novo', price: 10 }],
    };
    const counts = await load(database.db, file);
    assert.equal(counts.products, 1);
  });

  await t.test('a reference to a record already in the database is accepted', async () => {
    const file = {
      products: [
        {
          id: 1003,
          restaurant_id: 1,
          product_category_id: 100,
          name: 'Portuguesa',
          price: 47.9,
          complement_category_ids: [300],
        },
      ],
    };
    await load(database.db, file);
    const row = await database.db
      .selectFrom('products')
      .select(['brand_id'])
      .where('id', '=', 1003)
      .executeTakeFirstOrThrow();
    assert.equal(row.brand_id, 10, 'the product takes the brand of its category');
  });
});
