// Repository rows of a made-up catalog, the same for the same seed: every case the menu resolves
// (schedules on categories and products, sold out, channel flags, required choices, combos,
// promotions, fiscal data shared and distinct) and text JSON has to escape.
import { FISCAL_COLUMNS } from '../../../src/db/fiscal-columns.ts';
import type { CatalogRows, ProductRow } from '../../../src/modules/menu/repository.ts';
import type { MenuSchedule } from '../../../src/modules/menu/types.ts';

export type RowsShape = { categories: number; perCategory: number; descriptionLength: number; seed: number };

/** Weekdays 11:00-15:00. */
export const LUNCH: MenuSchedule[] = [1, 2, 3, 4, 5].map((weekday) => ({
  weekday,
  start: '11:00',
  end: '15:00',
}));
/** Friday 18:00-23:30, with seconds as PostgreSQL gives them. */
export const FRIDAY_NIGHT: MenuSchedule[] = [{ weekday: 5, start: '18:00:00', end: '23:30:00' }];

const NAMES = [
  'Pão de Açúcar',
  'Margherita "especial"',
  'Café\\com leite',
  'Pizza 🍕',
  'Linha\nnova',
  'Sep\u2028ar',
  'Ça va',
];

function random(seed: number) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function catalogRows(shape: RowsShape): CatalogRows {
  const next = random(shape.seed);
  const chance = (p: number) => next() < p;
  const pick = <T>(list: readonly T[]) => list[Math.floor(next() * list.length)];
  const money = (max: number) => (Math.floor(next() * max * 100) / 100).toFixed(2);
  const groups = Array.from({ length: 12 }, (_, g) => ({
    id: 500 + g,
    name: `Grupo ${g} ${pick(NAMES)}`,
    min: g % 4 === 0 ? 0 : g % 4,
    max: 3,
    options: Array.from({ length: 1 + (g % 4) }, (_, k) => ({
      id: 5000 + g * 10 + k,
      name: `Opção ${k} ${pick(NAMES)}`,
      price: money(12),
      delivery_price: chance(0.4) ? money(14) : null,
      available: chance(0.8),
    })),
  }));
  const rows: CatalogRows = { version: 1, categories: [], products: [], groups, links: [], comboItems: [] };
  let id = 1000;
  for (let c = 0; c < shape.categories; c++) {
    const categoryId = 100 + c;
    rows.categories.push({
      id: categoryId,
      name: `Categoria ${c} ${pick(NAMES)}`,
      position: c + 1,
      available: c % 7 !== 3,
      schedules: c % 3 === 1 ? LUNCH : [],
    });
    const count = c % 5 === 4 ? 0 : shape.perCategory;
    for (let p = 0; p < count; p++) rows.products.push(product(++id, categoryId, p));
  }
  // A product of a category the menu does not list (packaging): never shown.
  rows.products.push(product(++id, 99, 0));
  for (const row of rows.products) {
    const linked = Math.floor(next() * 4);
    for (let k = 0; k < linked; k++)
      rows.links.push({ product_id: row.id, complement_category_id: 500 + ((row.id * 7 + k * 5) % 12) });
    if (row.is_combo)
      for (let k = 1; k <= 3; k++)
        rows.comboItems.push({
          combo_product_id: row.id,
          available: chance(0.6),
          available_in_delivery: chance(0.6),
        });
  }
  // A link to a removed group (not among the groups read) is skipped.
  rows.links.push({ product_id: 1001, complement_category_id: 999 });
  return rows;

  function product(id: number, categoryId: number, position: number): ProductRow {
    const shared = chance(0.7);
    const values = FISCAL_COLUMNS.map((_, k) =>
      k % 5 === 4 ? null : shared ? `0${k}` : `${pick(NAMES)}-${id}-${k}`,
    );
    const is_combo = chance(0.1);
    return {
      // As PostgreSQL's json_build_array writes it.
      fiscal: `[${values.map((value) => JSON.stringify(value)).join(', ')}]`,
      id,
      product_category_id: categoryId,
      name: `${pick(NAMES)} ${id}`,
      description: chance(0.25)
        ? null
        : `${pick(NAMES)} `.repeat(1 + Math.floor(shape.descriptionLength / 12)),
      position: position + 1,
      price: money(120),
      price_promotion: chance(0.2) ? money(100) : null,
      delivery_price: chance(0.4) ? money(130) : null,
      delivery_price_promotion: chance(0.15) ? money(110) : null,
      available: chance(0.9),
      available_in_delivery: chance(0.9),
      sold_off: chance(0.05),
      use_weight: chance(0.05),
      has_starting_price: chance(0.1),
      charge_service_tax: chance(0.8),
      is_combo,
      combo_min_items: is_combo && chance(0.8) ? 2 : null,
      schedules: chance(0.1) ? FRIDAY_NIGHT : [],
    };
  }
}
