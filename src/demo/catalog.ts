// The demo catalog: two restaurants (Cantina Bella in São Paulo with two brands and scheduled
// orders; Sabor do Norte in Manaus), categories with schedules, packaging and marketplace mirror
// categories, mandatory and optional add-on groups, and 60 products.
import { cnpj } from './documents.ts';
import { FISCAL, type Fiscal } from './fiscal.ts';
import { DEMO_PRODUCTS } from './products.ts';

type Window = { weekday: number; start: string; end: string };

const every = (days: number[], start: string, end: string): Window[] =>
  days.map((weekday) => ({ weekday, start, end }));

export const BRANDS = [
  {
    id: 10,
    restaurant_id: 1,
    name: 'Cantina Bella',
    fantasy_name: 'Cantina Bella Restaurante Ltda',
    cnpj: cnpj('045220110001'),
    is_default: true,
  },
  {
    id: 11,
    restaurant_id: 1,
    name: 'Bella Express',
    fantasy_name: 'Bella Express Delivery Ltda',
    cnpj: cnpj('087310950001'),
    is_default: false,
  },
  {
    id: 20,
    restaurant_id: 2,
    name: 'Sabor do Norte',
    fantasy_name: 'Sabor do Norte Comida Regional Ltda',
    cnpj: cnpj('031870440001'),
    is_default: true,
  },
];

/** [id, restaurant, brand, name, kind, schedules, available] */
const CATEGORIES: [number, number, number | null, string, string, Window[], boolean][] = [
  [101, 1, 10, 'Pizzas', 'regular', every([0, 2, 3, 4, 5, 6], '18:00', '23:30'), true],
  [102, 1, 10, 'Massas', 'regular', [], true],
  [103, 1, 10, 'Almoço', 'regular', every([1, 2, 3, 4, 5, 6], '11:00', '15:00'), true],
  [104, 1, 10, 'Bebidas', 'regular', [], true],
  [105, 1, 10, 'Sobremesas', 'regular', [], true],
  [106, 1, 11, 'Combos Express', 'regular', [], true],
  [107, 1, 11, 'Lanches Express', 'regular', every([1, 2, 3, 4, 5], '10:00', '22:00'), true],
  [108, 1, 10, 'Embalagens', 'packaging', [], true],
  [109, 1, 10, 'Espelho marketplace', 'marketplace_mirror', [], true],
  [110, 1, 10, 'Sazonais', 'regular', [], false],
  [201, 2, 20, 'Pratos regionais', 'regular', [], true],
  [202, 2, 20, 'Açaí e cremes', 'regular', every([0, 1, 2, 3, 4, 5, 6], '10:00', '22:00'), true],
  [203, 2, 20, 'Bebidas', 'regular', [], true],
  [204, 2, 20, 'Sobremesas', 'regular', [], true],
  [205, 2, 20, 'Peixaria por quilo', 'regular', every([0, 5, 6], '11:00', '16:00'), true],
  [206, 2, 20, 'Combos', 'regular', [], true],
  [207, 2, 20, 'Embalagens', 'packaging', [], true],
  [208, 2, 20, 'Espelho marketplace', 'marketplace_mirror', [], true],
];

/** [id, restaurant, name, min, max, options: [name, price, delivery price?, available?]] */
const GROUPS: [number, number, string, number, number, [string, number, number | null, boolean][]][] = [
  [
    300,
    1,
    'Tamanho da pizza',
    1,
    1,
    [
      ['Broto', 0, null, true],
      ['Média', 8, null, true],
      ['Grande', 16, 18, true],
    ],
  ],
  [
    301,
    1,
    'Borda recheada',
    0,
    1,
    [
      ['Catupiry', 8, null, true],
      ['Cheddar', 8, null, true],
      ['Chocolate', 9, null, false],
    ],
  ],
  [
    302,
    1,
    'Adicionais',
    0,
    5,
    [
      ['Bacon', 5, null, true],
      ['Ovo', 3, null, true],
      ['Azeitona', 2.5, null, true],
      ['Parmesão', 4, 4.5, true],
    ],
  ],
  [
    303,
    1,
    'Ponto da massa',
    1,
    1,
    [
      ['Al dente', 0, null, true],
      ['Macia', 0, null, true],
    ],
  ],
  [
    304,
    1,
    'Sabores (meio a meio)',
    2,
    2,
    [
      ['Margherita', 0, null, true],
      ['Calabresa', 0, null, true],
      ['Quatro queijos', 5, null, true],
      ['Portuguesa', 3, null, true],
    ],
  ],
  [
    305,
    1,
    'Gelo e limão',
    0,
    2,
    [
      ['Gelo', 0, null, true],
      ['Limão', 0, null, true],
    ],
  ],
  [
    310,
    2,
    'Tamanho do açaí',
    1,
    1,
    [
      ['300 ml', 0, null, true],
      ['500 ml', 6, null, true],
      ['700 ml', 11, 12, true],
    ],
  ],
  [
    311,
    2,
    'Acompanhamentos',
    0,
    5,
    [
      ['Granola', 2, null, true],
      ['Banana', 2, null, true],
      ['Farinha de tapioca', 1.5, null, true],
      ['Leite condensado', 3, null, true],
      ['Paçoca', 2.5, null, false],
    ],
  ],
  [
    312,
    2,
    'Molhos',
    0,
    2,
    [
      ['Tucupi', 0, null, true],
      ['Pimenta de cheiro', 0, null, true],
    ],
  ],
  [
    313,
    2,
    'Guarnição',
    1,
    2,
    [
      ['Arroz', 0, null, true],
      ['Farofa', 0, null, true],
      ['Vinagrete', 0, null, true],
      ['Baião de dois', 4, null, true],
    ],
  ],
];

export function demoCatalog(fiscalTokens: Record<number, string>) {
  const restaurants = [
    { id: 1, name: 'Cantina Bella', timezone: 'America/Sao_Paulo', accepts_scheduling: true },
    { id: 2, name: 'Sabor do Norte', timezone: 'America/Manaus', accepts_scheduling: false },
  ];
  const brands = BRANDS.map((b) => ({ ...b, fiscal_token: fiscalTokens[b.id] ?? null, deleted_at: null }));
  const product_categories = CATEGORIES.map(
    ([id, restaurant_id, brand_id, name, kind, schedules, available], i) => ({
      id,
      restaurant_id,
      brand_id,
      name,
      position: i + 1,
      available,
      kind,
      schedules,
      removed_at: null,
    }),
  );
  let optionId = 3000;
  const complement_categories = GROUPS.map(([id, restaurant_id, name, min, max, options]) => ({
    id,
    restaurant_id,
    name,
    min,
    max,
    options: options.map(([option, price, delivery_price, available]) => ({
      id: ++optionId,
      name: option,
      price,
      delivery_price,
      available,
    })),
  }));
  const positions = new Map<number, number>();
  const products = DEMO_PRODUCTS.map((p) => {
    const category = CATEGORIES.find((c) => c[0] === p.category)!;
    const position = (positions.get(p.category) ?? 0) + 1;
    positions.set(p.category, position);
    const fiscal: Fiscal = FISCAL[p.fiscal ?? 'prepared'];
    return {
      id: p.id,
      restaurant_id: category[1],
      product_category_id: p.category,
      position,
      name: p.name,
      description: p.description ?? null,
      price: p.price,
      price_promotion: p.promotion ?? null,
      delivery_price: p.delivery ?? null,
      delivery_price_promotion: p.deliveryPromotion ?? null,
      available: p.available ?? true,
      available_in_delivery: p.inDelivery ?? true,
      sold_off: p.soldOff ?? false,
      use_weight: p.weight ?? false,
      has_starting_price: p.startingAt ?? false,
      charge_service_tax: p.serviceTax ?? true,
      is_combo: !!p.combo,
      combo: p.combo ? { min_items: p.combo.min, product_ids: p.combo.items } : null,
      complement_category_ids: p.groups ?? [],
      schedules: p.schedules ?? [],
      fiscal: category[1] === 2 ? { ...fiscal, ...FISCAL.normalRegime } : fiscal,
      removed_at: p.removed ? '2026-01-15T12:00:00.000Z' : null,
    };
  });
  return { restaurants, brands, product_categories, complement_categories, products };
}
