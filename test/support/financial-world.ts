// A deterministic financial world written with direct inserts (no importer): two restaurants,
// their suppliers, accounts, methods and cost centres, and cash flows with invoices and titles,
// deleted entries and children, and competence dates inside, outside and absent. Tests keep the
// returned rows to compute their expectations by brute force.
import type { Db } from '../../src/db/database.ts';

export type WorldEntry = {
  id: number;
  restaurant_id: number;
  parent_id: number | null;
  entry_type: 'standalone' | 'invoice' | 'invoice_item' | 'title' | 'title_entry';
  description: string;
  cents: number;
  due_date: string;
  competence_date: string | null;
  paid: boolean;
  paid_at: string | null;
  is_earning: boolean;
  provider_id: number | null;
  bank_account_id: number | null;
  payment_method_id: number | null;
  category_subcategory_id: number | null;
  counts_for_result: boolean;
  deleted: boolean;
};

export type Lookups = {
  suppliers: number[];
  bankAccounts: number[];
  paymentMethods: number[];
  costCentres: number[];
};
export type WorldRestaurant = { id: number; lookups: Lookups; entries: WorldEntry[] };

/** mulberry32: a small seeded PRNG, so every run builds the same world. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const addDays = (date: string, days: number) =>
  new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);

export async function insertRestaurant(db: Db, id: number, base: number): Promise<Lookups> {
  await db
    .insertInto('restaurants')
    .values({ id, name: `Restaurant ${id}` })
    .execute();
  const ids = (offset: number, n: number) => Array.from({ length: n }, (_, i) => base + offset + i);
  const lookups = {
    suppliers: ids(0, 3),
    bankAccounts: ids(10, 2),
    paymentMethods: ids(20, 3),
    costCentres: ids(30, 4),
  };
  await db
    .insertInto('suppliers')
    .values(
      lookups.suppliers.map((sid, i) => ({
        id: sid,
        restaurant_id: id,
        name: `Supplier ${sid}`,
        deleted_at: i === 2 ? new Date() : null,
      })),
    )
    .execute();
  for (const [table, list] of [
    ['bank_accounts', lookups.bankAccounts],
    ['payment_methods', lookups.paymentMethods],
    ['cost_centres', lookups.costCentres],
  ] as const) {
    await db
      .insertInto(table)
      .values(list.map((lid) => ({ id: lid, restaurant_id: id, name: `${table} ${lid}` })))
      .execute();
  }
  return lookups;
}

export async function insertEntries(db: Db, entries: WorldEntry[]): Promise<void> {
  const rows = entries.map(({ cents, deleted, ...e }) => ({
    ...e,
    value: (cents / 100).toFixed(2),
    deleted_at: deleted ? new Date('2026-01-05T10:00:00Z') : null,
  }));
  // Parents first: children reference them.
  const ordered = [...rows.filter((r) => r.parent_id === null), ...rows.filter((r) => r.parent_id !== null)];
  for (let i = 0; i < ordered.length; i += 500) {
    await db
      .insertInto('cash_flows')
      .values(ordered.slice(i, i + 500))
      .execute();
  }
}

type Options = { seed: number; mains: number; firstId: number; from: string; days: number };

export function generateEntries(restaurantId: number, lookups: Lookups, o: Options): WorldEntry[] {
  const rand = prng(o.seed);
  const pick = <T>(list: T[]) => list[Math.floor(rand() * list.length)];
  const maybe = <T>(list: T[]) => (rand() < 0.2 ? null : pick(list));
  // Ids are shuffled against dates, so only an explicit (date, id) order keeps pages stable.
  const ids = Array.from({ length: o.mains }, (_, i) => o.firstId + i);
  for (let i = ids.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [ids[i], ids[j]] = [ids[j], ids[i]];
  }
  let childId = o.firstId + o.mains;
  const entries: WorldEntry[] = [];
  for (const id of ids) {
    const due = addDays(o.from, Math.floor(rand() * o.days));
    const competence = rand() < 0.3 ? null : addDays(due, Math.floor(rand() * 61) - 40);
    const kind = rand();
    const paid = rand() < 0.4;
    const main: WorldEntry = {
      id,
      restaurant_id: restaurantId,
      parent_id: null,
      entry_type: kind < 0.65 ? 'standalone' : kind < 0.85 ? 'invoice' : 'title',
      description: `Entry ${id}`,
      cents: 1 + Math.floor(rand() * 500_000),
      due_date: due,
      competence_date: competence,
      paid,
      paid_at: paid ? `${due}T15:30:00.250Z` : null,
      is_earning: rand() < 0.45,
      provider_id: maybe(lookups.suppliers),
      bank_account_id: maybe(lookups.bankAccounts),
      payment_method_id: maybe(lookups.paymentMethods),
      category_subcategory_id: maybe(lookups.costCentres),
      counts_for_result: true,
      deleted: rand() < 0.06,
    };
    entries.push(main);
    if (main.entry_type === 'standalone') continue;
    main.counts_for_result = false;
    const n = 1 + Math.floor(rand() * 3);
    let left = main.cents;
    for (let k = 0; k < n; k++) {
      const cents = k === n - 1 ? left : Math.floor(left / 2);
      left -= cents;
      entries.push({
        ...main,
        id: childId++,
        parent_id: id,
        entry_type: main.entry_type === 'invoice' ? 'invoice_item' : 'title_entry',
        description: `Item ${k + 1} of ${id}`,
        cents,
        category_subcategory_id: pick(lookups.costCentres),
        counts_for_result: true,
        deleted: rand() < 0.1,
      });
    }
  }
  return entries;
}

/** Hand-made entries of restaurant A that tests name by id (see financial.md for the rules). */
function specialEntries(restaurantId: number, l: Lookups): WorldEntry[] {
  const [c1, c2, c3, c4] = l.costCentres;
  const entry = (
    id: number,
    parent_id: number | null,
    entry_type: WorldEntry['entry_type'],
    cents: number,
    due_date: string,
    category_subcategory_id: number | null,
    more: Partial<WorldEntry> = {},
  ): WorldEntry => ({
    id,
    restaurant_id: restaurantId,
    parent_id,
    entry_type,
    description: 'Special',
    cents,
    due_date,
    competence_date: null,
    paid: false,
    paid_at: null,
    is_earning: false,
    provider_id: l.suppliers[0],
    bank_account_id: null,
    payment_method_id: null,
    category_subcategory_id,
    counts_for_result: parent_id !== null || entry_type === 'standalone',
    deleted: false,
    ...more,
  });
  return [
    // An invoice spread over two cost centres.
    entry(900, null, 'invoice', 30000, '2026-02-10', c1),
    entry(901, 900, 'invoice_item', 20000, '2026-02-10', c1),
    entry(902, 900, 'invoice_item', 10000, '2026-02-10', c2),
    // A title whose only c3 item is deleted: it matches c4 but never c3.
    entry(910, null, 'title', 12000, '2026-02-11', null),
    entry(911, 910, 'title_entry', 5000, '2026-02-11', c3, { deleted: true }),
    entry(912, 910, 'title_entry', 7000, '2026-02-11', c4),
    // Competence regime: no competence date (counts by due), competence inside, competence outside.
    entry(920, null, 'standalone', 100, '2026-03-31', null),
    entry(921, null, 'standalone', 200, '2026-04-20', null, { competence_date: '2026-03-31' }),
    entry(922, null, 'standalone', 300, '2026-03-31', null, { competence_date: '2026-04-01' }),
    // A deleted main entry and its (not deleted) child: neither is ever listed.
    entry(930, null, 'invoice', 400, '2026-01-15', c1, { deleted: true }),
    entry(931, 930, 'invoice_item', 400, '2026-01-15', c1),
  ];
}

export type FinancialWorld = { a: WorldRestaurant; b: WorldRestaurant };

/** Restaurant 1 (A): about 300 live main entries in 2026 Q1; restaurant 2 (B): 40 over the same days. */
export async function buildFinancialWorld(db: Db): Promise<FinancialWorld> {
  const lookupsA = await insertRestaurant(db, 1, 100);
  const lookupsB = await insertRestaurant(db, 2, 200);
  const a = [
    ...generateEntries(1, lookupsA, { seed: 7, mains: 420, firstId: 1000, from: '2025-12-15', days: 120 }),
    ...specialEntries(1, lookupsA),
  ];
  const b = generateEntries(2, lookupsB, {
    seed: 8,
    mains: 40,
    firstId: 50000,
    from: '2026-01-01',
    days: 90,
  });
  await insertEntries(db, [...a, ...b]);
  return { a: { id: 1, lookups: lookupsA, entries: a }, b: { id: 2, lookups: lookupsB, entries: b } };
}
