// Wire schemas of change review: the dry run of an edit, the product history and the body of a
// 409. Like every response schema they are also the serialiser (nothing outside them leaves).
import { type Static, Type } from 'typebox';
import { nullable } from '../../http/nullable.ts';
import { flagParameter } from '../../http/parameters.ts';
import { nameSchema } from '../../http/schema-names.ts';
import { Product } from './response-schemas.ts';
import { RestaurantQuery } from './schemas.ts';

export const EditQuery = Type.Object(
  {
    ...RestaurantQuery.properties,
    dry_run: flagParameter(
      '`true`: run every check of the write (same locks, same errors) and answer the ChangeReview of what it would change, writing nothing.',
    ),
  },
  { additionalProperties: false },
);

const changeValue = (description: string) =>
  nullable(Type.Unsafe<string | number | boolean>({ type: ['string', 'number', 'boolean'] }), {
    description,
  });

const Change = nameSchema(
  'Change',
  Type.Object(
    {
      field: Type.String({ description: 'A write field, or `fiscal_info.<attribute>`.' }),
      from: changeValue('Money as a two-decimal string; text, integer, boolean or null.'),
      to: changeValue('Same types as `from`.'),
    },
    { additionalProperties: false },
  ),
);

const Preview = nameSchema(
  'ProductPreview',
  Type.Object(
    {
      id: Type.Integer(),
      current: Product,
      proposed: Product,
      changes: Type.Array(Change, {
        description: 'Only the fields that would really change; empty when none.',
      }),
      expected_updated_at: Type.String({
        format: 'date-time',
        description: 'The current version: send it with the real write to apply exactly what was reviewed.',
      }),
    },
    {
      additionalProperties: false,
      description:
        '`current`: the stored product; `proposed`: the product as the write would leave it, whose ' +
        '`updated_at` is still the current version (the real write moves it).',
    },
  ),
);

export const DryRunResult = nameSchema(
  'ChangeReview',
  Type.Object(
    {
      dry_run: Type.Literal(true),
      products: Type.Array(Preview, { description: 'One per product, in the order received.' }),
    },
    {
      additionalProperties: false,
      description:
        'The answer of `?dry_run=true`: nothing was written. Told from a product by `dry_run`, which no product has.',
    },
  ),
);

/**
 * The 409 body of an edit: the catalogue's error plus, for product_update_conflict, every stale
 * object of the request. The other 409 of these routes, idempotency_key_in_use, has no conflicts.
 */
export const ConflictError = nameSchema(
  'UpdateConflict',
  Type.Object({
    statusCode: Type.Integer(),
    message: Type.String(),
    key: Type.String(),
    conflicts: Type.Optional(
      Type.Array(
        Type.Object(
          {
            index: Type.Integer({ description: 'Position in the bulk array; 0 for a single edit.' }),
            id: Type.Integer(),
            current_updated_at: Type.String({
              format: 'date-time',
              description: 'Re-read and review again.',
            }),
          },
          { additionalProperties: false },
        ),
        { description: 'With product_update_conflict only: every stale object, in request order.' },
      ),
    ),
  }),
);

export const HistoryQuery = Type.Object(
  {
    ...RestaurantQuery.properties,
    cursor: Type.Optional(
      Type.String({ minLength: 1, maxLength: 100, description: '`next_cursor` of the previous page.' }),
    ),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 50 })),
  },
  { additionalProperties: false },
);

export type HistoryQueryInput = Static<typeof HistoryQuery>;

const Credential = Type.Union([
  Type.Object(
    { kind: Type.Literal('api_key'), api_key_id: Type.Integer(), api_key_name: Type.String() },
    { additionalProperties: false },
  ),
  Type.Object(
    { kind: Type.Literal('oauth_client'), client_id: Type.String() },
    { additionalProperties: false },
  ),
  Type.Object({ kind: Type.Literal('restaurant_session') }, { additionalProperties: false }),
  Type.Object(
    { kind: Type.Literal('import') },
    { additionalProperties: false, description: 'A data import (`comanda import`, `comanda demo`).' },
  ),
]);

export const HistoryPage = nameSchema(
  'ProductHistory',
  Type.Object(
    {
      items: Type.Array(
        Type.Object(
          {
            at: Type.String({ format: 'date-time', description: 'When the write ran.' }),
            credential: Credential,
            operation: Type.Enum(['create', 'edit', 'bulk', 'availability']),
            changes: Type.Array(Change),
          },
          { additionalProperties: false },
        ),
        { description: 'Newest first.' },
      ),
      next_cursor: nullable(Type.String(), {
        description: 'Pass as `cursor` for the next (older) page; null on the last page.',
      }),
    },
    { additionalProperties: false },
  ),
);
