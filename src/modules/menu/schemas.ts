// GET /v1/menu: the query and the response (menu.md). The response schema is also the
// serialiser, so nothing outside it (cost, fiscal_group_id, schedules) can leak.
import { type Static, Type } from 'typebox';
import { FISCAL_COLUMNS } from '../../db/fiscal-columns.ts';
import { nullable } from '../../http/nullable.ts';
import { flagParameter, idParameter, restaurantIdParameter } from '../../http/parameters.ts';
import { nameSchema } from '../../http/schema-names.ts';
import { UNAVAILABLE_REASONS } from './types.ts';

const nullableString = nullable(Type.String());
const money = Type.String({ description: 'Decimal with two places, e.g. "42.90".' });
const nullableMoney = nullableString;

const SEARCH_MAX_LENGTH = 100;

export const menuQuery = Type.Object(
  {
    channel: Type.Optional(Type.Enum(['in_store', 'delivery'], { default: 'in_store' })),
    only_available: flagParameter('Only products available now or orderable for later.', { default: false }),
    category_id: Type.Optional(idParameter('One category.')),
    search: Type.Optional(Type.String({ maxLength: SEARCH_MAX_LENGTH })),
    include_fiscal_info: flagParameter("Add each product's fiscal projection.", { default: false }),
    at: Type.Optional(Type.String({ format: 'date-time' })),
    restaurant_id: restaurantIdParameter(),
  },
  { additionalProperties: false },
);

export type MenuQuery = Static<typeof menuQuery>;

const fiscal = Type.Object(Object.fromEntries(FISCAL_COLUMNS.map((column) => [column, nullableString])));

const option = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  price: money,
  available: Type.Boolean(),
});

const group = nameSchema(
  'ComplementGroup',
  Type.Object({
    id: Type.Integer(),
    name: Type.String(),
    min: Type.Integer(),
    max: Type.Integer(),
    required: Type.Boolean(),
    options: Type.Array(option),
  }),
);

const pricing = Type.Object({
  mode: Type.Enum(['fixed', 'starting_at', 'per_kg']),
  is_combo: Type.Boolean(),
  price: money,
  price_promotion: nullableMoney,
  delivery_price: nullableMoney,
  delivery_price_promotion: nullableMoney,
  resolved: Type.Object({
    base: money,
    source: Type.Enum(['price_promotion', 'price', 'delivery_price_promotion', 'delivery_price']),
    minimum: money,
  }),
});

const reason = nullable(Type.Enum(UNAVAILABLE_REASONS));

const availability = Type.Object({
  available: Type.Boolean(),
  available_in_delivery: Type.Boolean(),
  sold_out: Type.Boolean(),
  resolved: Type.Object({ available: Type.Boolean(), reason, schedulable: Type.Boolean() }),
});

const product = nameSchema(
  'MenuProduct',
  Type.Object({
    id: Type.Integer(),
    product_category_id: Type.Integer(),
    name: Type.String(),
    description: nullableString,
    position: Type.Integer(),
    use_weight: Type.Boolean(),
    has_starting_price: Type.Boolean(),
    charge_service_tax: Type.Boolean(),
    pricing,
    availability,
    complement_categories: Type.Array(group),
    fiscal: Type.Optional(fiscal),
  }),
);

const category = nameSchema(
  'MenuCategory',
  Type.Object({
    id: Type.Integer(),
    name: Type.String(),
    position: Type.Integer(),
    available: Type.Boolean(),
    products: Type.Array(product),
  }),
);

export const menuResponse = nameSchema(
  'Menu',
  Type.Object({
    restaurant_id: Type.Integer(),
    channel: Type.Enum(['in_store', 'delivery']),
    evaluated_at: Type.String({ format: 'date-time' }),
    categories: Type.Array(category),
  }),
);
