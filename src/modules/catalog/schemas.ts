// Request and response schemas of the product routes (contract 2.1-2.3). Bodies are validated
// strictly (no coercion, unknown fields rejected); decimals, trimming and "no effective change"
// are checked by edit-input.ts, which JSON Schema cannot express exactly.
import { type Static, Type } from 'typebox';
import { FCP_PERCENTUAL_PATTERN, FISCAL_COLUMNS, FISCAL_VALUE_MAX } from '../../db/fiscal-columns.ts';
import { nullable } from '../../http/nullable.ts';
import { idParameter, restaurantIdParameter } from '../../http/parameters.ts';
import { nameSchema } from '../../http/schema-names.ts';
import { explainedPattern } from '../../http/validation.ts';
import { MAX_MONEY } from '../../lib/money.ts';

const nullableMoney = () => nullable(Type.Number({ minimum: 0, maximum: MAX_MONEY }));
const id = idParameter;

const flags = {
  available: Type.Boolean({ description: 'In-store sale (table, counter, on-premises).' }),
  available_in_delivery: Type.Boolean({ description: 'Delivery and delivery-flow pickup.' }),
  sold_off: Type.Boolean({ description: 'Temporary sold-out flag for both channels.' }),
  use_weight: Type.Boolean({ description: 'Weight sale: price is per kilogram.' }),
  has_starting_price: Type.Boolean({ description: "'Starting at' presentation." }),
  charge_service_tax: Type.Boolean({ description: 'Whether the item enters the service-charge base.' }),
};

const fields = {
  name: Type.String({
    // JavaScript's \s is exactly what String.prototype.trim removes.
    ...explainedPattern(
      '^\\s*\\S([\\s\\S]{0,253}\\S)?\\s*$',
      'must have 1 to 255 characters once trimmed (not only spaces)',
      'Pizza Margherita',
    ),
    description: 'Trimmed; 1 to 255 characters (Unicode code points) once trimmed.',
  }),
  product_category_id: id('A non-removed category of the same restaurant.'),
  description: nullable(Type.String({ maxLength: 255 })),
  price: Type.Number({ minimum: 0, maximum: MAX_MONEY, description: 'JSON number, at most two decimals.' }),
  price_promotion: nullableMoney(),
  delivery_price: nullableMoney(),
  delivery_price_promotion: nullableMoney(),
  ...flags,
};

/** A numeric string (db/fiscal-columns.ts says why). */
const fcpPercentual = Type.String({
  maxLength: FISCAL_VALUE_MAX,
  ...explainedPattern(FCP_PERCENTUAL_PATTERN, 'must be a numeric string', '2.5'),
});

const FiscalInfoInput = nameSchema(
  'FiscalInfoInput',
  Type.Object(
    Object.fromEntries(
      FISCAL_COLUMNS.map((c) => [
        c,
        Type.Optional(
          nullable(c === 'fcp_percentual' ? fcpPercentual : Type.String({ maxLength: FISCAL_VALUE_MAX })),
        ),
      ]),
    ),
    {
      additionalProperties: false,
      description: 'Partial: omitted attributes stay; null clears one.',
    },
  ),
);

const optional = <T extends Record<string, any>>(o: T) =>
  Object.fromEntries(Object.entries(o).map(([k, v]) => [k, Type.Optional(v)])) as {
    [K in keyof T]: ReturnType<typeof Type.Optional<T[K]>>;
  };

const editFields = {
  ...optional(fields),
  expected_updated_at: Type.Optional(Type.String({ format: 'date-time' })),
  fiscal_info: Type.Optional(FiscalInfoInput),
};

export const CreateBody = nameSchema(
  'ProductInput',
  Type.Object(
    {
      ...optional(fields),
      name: fields.name,
      product_category_id: fields.product_category_id,
      price: Type.Number({ exclusiveMinimum: 0, maximum: MAX_MONEY, description: 'Greater than 0.' }),
    },
    { additionalProperties: false },
  ),
);

/** The path names the product: `id` in the body is refused as read-only (read-only-fields.ts). */
export const EditBody = nameSchema(
  'ProductEdit',
  Type.Object(editFields, {
    additionalProperties: false,
    description: 'Partial: at least one field must change the product (else product_changes_required).',
  }),
);

export const BulkBody = Type.Array(
  nameSchema(
    'BulkEditItem',
    Type.Object({ ...editFields, id: id('The product to edit.') }, { additionalProperties: false }),
  ),
  { minItems: 1, maxItems: 100 },
);

export const AvailabilityBody = nameSchema(
  'ProductAvailability',
  Type.Object(
    {
      available: Type.Optional(flags.available),
      available_in_delivery: Type.Optional(flags.available_in_delivery),
    },
    { additionalProperties: false },
  ),
);

export type CreateInput = Static<typeof CreateBody>;
export type EditInput = Static<typeof EditBody>;
export type BulkInput = Static<typeof BulkBody>;
export type AvailabilityInput = Static<typeof AvailabilityBody>;

export const ProductParams = Type.Object({ productId: id('Product id.') }, { additionalProperties: false });
export const RestaurantQuery = Type.Object(
  { restaurant_id: restaurantIdParameter() },
  { additionalProperties: false },
);
