// Rules within and across records: one default brand per restaurant, items only under invoices
// and titles and summing to their parent, combos, add-on groups and credentials.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createTestDatabase } from '../support/database.ts';
import { assertRejected, load, world, worldWith } from './world.ts';

type File = Record<string, any[]>;

const CASES: [string, string, (f: File) => void][] = [
  [
    'two default brands of one restaurant in a file are rejected',
    'brands[2].is_default: restaurant 1 already has a default brand (brands[0])',
    (f) => {
      f.brands.push({ id: 11, restaurant_id: 1, name: 'Express', is_default: true });
    },
  ],
  [
    'a default brand beside another default already in the database is rejected',
    'brands[0].is_default: restaurant 1 already has a default brand (brand 10 in the database)',
    (f) => {
      f.brands = [{ id: 12, restaurant_id: 1, name: 'Outra', is_default: true }];
    },
  ],
  [
    'items under a standalone entry are rejected',
    'cash_flows[1].items: only an invoice or a title has items (entry_type is "standalone")',
    (f) => {
      f.cash_flows[1].items = [{ id: 5010, value: 1500 }];
    },
  ],
  [
    'a title entry under an invoice is rejected',
    'cash_flows[0].items[0].entry_type: must be invoice_item under an invoice',
    (f) => {
      f.cash_flows[0].items[0].entry_type = 'title_entry';
    },
  ],
  [
    'an invoice item under a title is rejected',
    'cash_flows[2].items[1].entry_type: must be title_entry under a title',
    (f) => {
      f.cash_flows[2].items[1].entry_type = 'invoice_item';
    },
  ],
  [
    'an item given as a main entry is rejected',
    'cash_flows[1].entry_type: must be one of standalone, invoice, title',
    (f) => {
      f.cash_flows[1].entry_type = 'invoice_item';
    },
  ],
  [
    'an invoice whose value differs from the sum of its items is rejected',
    'cash_flows[0].value: must equal the sum of its items (300.00 given, items sum 250.00)',
    (f) => {
      f.cash_flows[0].items[1].value = '50.00';
    },
  ],
  [
    'a payment time on an unpaid entry is rejected',
    'cash_flows[1].paid_at: must be null when paid is false',
    (f) => {
      f.cash_flows[1].paid_at = '2026-03-11T10:00:00Z';
    },
  ],
  [
    'an unpaid item under a paid invoice cannot keep a payment time',
    'cash_flows[0].items[0].paid_at: must be null when paid is false',
    (f) => {
      f.cash_flows[0].items[0].paid = false;
    },
  ],
  [
    'combo items on a product that is not a combo are rejected',
    'products[1].combo: only a combo (is_combo: true) has combo items',
    (f) => {
      f.products[1].combo = { min_items: 1, product_ids: [1000] };
    },
  ],
  [
    'a combo containing itself is rejected',
    'products[2].combo.product_ids[2]: a combo cannot contain itself',
    (f) => {
      f.products[2].combo.product_ids.push(1002);
    },
  ],
  [
    'a combo repeating an item is rejected',
    'products[2].combo.product_ids[1]: repeats 1000',
    (f) => {
      f.products[2].combo.product_ids = [1000, 1000];
    },
  ],
  [
    'an unknown field inside a combo is rejected',
    'products[2].combo.max_items: unknown field',
    (f) => {
      f.products[2].combo.max_items = 3;
    },
  ],
  [
    'an add-on group whose max is below its min is rejected',
    'complement_categories[0].max: must be at least min (2)',
    (f) => {
      f.complement_categories[0].min = 2;
    },
  ],
  [
    'an unknown field in an add-on option is rejected',
    'complement_categories[0].options[0].cost: unknown field',
    (f) => {
      f.complement_categories[0].options[0].cost = 1;
    },
  ],
  [
    'an API key without the ck_live_ or ck_test_ prefix is rejected',
    'api_keys[0].key: must start with ck_live_ or ck_test_',
    (f) => {
      f.api_keys[0].key = 'sk_test_123';
    },
  ],
  [
    'an unknown scope is rejected',
    'api_keys[0].scopes[1]: must be one of products:read, products:write, menu:read, financial:read, nfe-received:read, webhooks:read, webhooks:write',
    (f) => {
      f.api_keys[0].scopes = ['menu:read', 'admin'];
    },
  ],
  [
    'an API key for no restaurant is rejected',
    'api_keys[0].restaurant_ids: must not be empty',
    (f) => {
      f.api_keys[0].restaurant_ids = [];
    },
  ],
  [
    'the same API key twice in a file is rejected',
    'api_keys[2].key: the same key is already given to api_keys[1]',
    (f) => {
      f.api_keys.push(
        { ...f.api_keys[0], id: 2, key: 'ck_live_twice' },
        { ...f.api_keys[0], id: 3, key: 'ck_live_twice' },
      );
    },
  ],
  [
    'a key already stored under another id is rejected',
    'api_keys[0].key: the same key is already given to API key 1 in the database',
    (f) => {
      f.api_keys[0].id = 5;
    },
  ],
  [
    'a client_credentials client without a secret is rejected',
    'oauth_clients[0].client_secret: a client_credentials client must have a secret',
    (f) => {
      f.oauth_clients[0].client_secret = null;
    },
  ],
  [
    'an authorization_code client without a redirect URI is rejected',
    'oauth_clients[0].redirect_uris: an authorization_code client needs at least one redirect URI',
    (f) => {
      f.oauth_clients[0].grant_types = ['authorization_code'];
    },
  ],
  [
    'a redirect URI that is not an absolute URL is rejected',
    'oauth_clients[0].redirect_uris[0]: must be an absolute URL without a fragment',
    (f) => {
      f.oauth_clients[0].redirect_uris = ['/callback'];
    },
  ],
  [
    'an unknown grant type is rejected',
    'oauth_clients[0].grant_types[0]: must be one of client_credentials, authorization_code',
    (f) => {
      f.oauth_clients[0].grant_types = ['password'];
    },
  ],
  [
    'a stored item given as a main entry without its parent is rejected (the parent would no longer equal its items)',
    'cash_flows[0].id: cash flow 5002 is an item of cash flow 5000 in the database; list 5000 in the file too, with its items as they will be',
    (f) => {
      f.cash_flows = [
        {
          id: 5002,
          restaurant_id: 1,
          entry_type: 'standalone',
          value: '100.00',
          due_date: '2026-03-10',
          is_earning: false,
        },
      ];
    },
  ],
  [
    'a stored item moved under another parent without its own parent is rejected',
    'cash_flows[0].items[0].id: cash flow 5002 is an item of cash flow 5000 in the database; list 5000 in the file too, with its items as they will be',
    (f) => {
      f.cash_flows = [
        {
          id: 6000,
          restaurant_id: 1,
          entry_type: 'invoice',
          value: '100.00',
          due_date: '2026-03-10',
          is_earning: false,
          items: [{ id: 5002, value: '100.00' }],
        },
      ];
    },
  ],
];

test('import record rules', async (t) => {
  const database = await createTestDatabase();
  t.after(() => database.close());
  await load(database.db, world());

  for (const [name, issue, change] of CASES) {
    await t.test(name, () => assertRejected(database.db, worldWith(change), issue));
  }

  await t.test('the default can move from one brand to another in one file', async () => {
    const file = {
      brands: [
        { ...world().brands[0], is_default: false },
        { id: 11, restaurant_id: 1, name: 'Express', is_default: true },
      ],
    };
    await load(database.db, file);
    const defaults = await database.db
      .selectFrom('brands')
      .select('id')
      .where('restaurant_id', '=', 1)
      .where('is_default', '=', true)
      .execute();
    assert.deepEqual(defaults, [{ id: 11 }]);
    await load(database.db, {
      brands: world().brands.concat({ id: 11, restaurant_id: 1, name: 'Express', is_default: false }),
    });
  });

  await t.test('an item moves to another parent when the file lists its old parent too', async () => {
    const [invoice] = world().cash_flows;
    const file = {
      cash_flows: [
        { ...invoice, value: '200.00', items: [invoice.items[0]] },
        { ...invoice, id: 6000, value: '100.00', items: [invoice.items[1]] },
      ],
    };
    await load(database.db, file);
    const items = await database.db
      .selectFrom('cash_flows')
      .select(['id', 'parent_id'])
      .where('parent_id', 'in', [5000, 6000])
      .orderBy('id')
      .execute();
    assert.deepEqual(items, [
      { id: 5001, parent_id: 5000 },
      { id: 5002, parent_id: 6000 },
    ]);
    await load(database.db, { cash_flows: [world().cash_flows[0], { ...world().cash_flows[1], id: 6000 }] });
  });

  await t.test('a deleted default brand does not count as the default', async () => {
    const file = {
      brands: [
        { id: 13, restaurant_id: 1, name: 'Antiga', is_default: true, deleted_at: '2025-01-01T00:00:00Z' },
      ],
    };
    assert.equal((await load(database.db, file)).brands, 1);
  });

  await t.test(
    'items inherit their parent dates, payment, direction, supplier, bank account and payment method',
    async () => {
      const rows = await database.db
        .selectFrom('cash_flows')
        .select([
          'id',
          'entry_type',
          'parent_id',
          'due_date',
          'competence_date',
          'paid',
          'paid_at',
          'is_earning',
        ])
        .select([
          'provider_id',
          'bank_account_id',
          'payment_method_id',
          'category_subcategory_id',
          'counts_for_result',
        ])
        .where('id', 'in', [5000, 5002, 5004, 5005, 5006])
        .orderBy('id')
        .execute();
      const [invoice, item, title, ownDate, inherited] = rows;
      assert.equal(invoice.counts_for_result, false, 'a parent of items does not count twice for results');
      assert.deepEqual(
        { ...item, id: 0 },
        {
          ...invoice,
          id: 0,
          entry_type: 'invoice_item',
          parent_id: 5000,
          category_subcategory_id: 80,
          counts_for_result: true,
        },
      );
      assert.equal(ownDate.due_date, '2026-03-20', 'an item keeps a date it gives');
      assert.equal(ownDate.entry_type, 'title_entry');
      assert.equal(inherited.due_date, title.due_date);
      assert.equal(inherited.is_earning, true);
    },
  );
});
