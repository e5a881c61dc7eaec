// Response schemas (contract 2.2, 2.3): they make serialisation fast and are the last guard
// against internal columns (cost, fiscal_group_id, brand_id, position...) reaching a client.
import { Type } from 'typebox';
import { FISCAL_COLUMNS } from '../../db/fiscal-columns.ts';
import { nullable } from '../../http/nullable.ts';
import { nameSchema } from '../../http/schema-names.ts';

const nullableString = () => nullable(Type.String());

const Fiscal = nameSchema(
  'Fiscal',
  Type.Object(Object.fromEntries(FISCAL_COLUMNS.map((c) => [c, nullableString()])), {
    additionalProperties: false,
    description: 'Fiscal projection (contract 2.3): every attribute, null where not registered.',
  }),
);

/** The product's fields, in the answer's order: product-map.ts copies each from its column. */
const productFields = {
  id: Type.Integer(),
  restaurant_id: Type.Integer(),
  product_category_id: Type.Integer(),
  name: Type.String(),
  description: nullableString(),
  price: Type.String({ description: 'Two decimals.' }),
  price_promotion: nullableString(),
  delivery_price: nullableString(),
  delivery_price_promotion: nullableString(),
  available: Type.Boolean(),
  available_in_delivery: Type.Boolean(),
  sold_off: Type.Boolean(),
  use_weight: Type.Boolean(),
  has_starting_price: Type.Boolean(),
  charge_service_tax: Type.Boolean(),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time', description: 'The version for expected_updated_at.' }),
  fiscal: Fiscal,
};

/** Detail and write responses: the product with `fiscal` and its alias `fiscal_info`. */
export const Product = nameSchema(
  'Product',
  Type.Object({ ...productFields, fiscal_info: Fiscal }, { additionalProperties: false }),
);

/** A product inside the legacy listing: `fiscal` only. */
export const ListedProduct = nameSchema(
  'ListedProduct',
  Type.Object(productFields, { additionalProperties: false }),
);

export const Catalog = Type.Array(
  nameSchema(
    'Category',
    Type.Object(
      {
        id: Type.Integer(),
        name: Type.String(),
        position: Type.Integer(),
        available: Type.Boolean(),
        products: Type.Array(ListedProduct),
      },
      { additionalProperties: false, description: 'A category of the legacy listing with its products.' },
    ),
  ),
);
