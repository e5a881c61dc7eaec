// Wire schemas of the brands, the received NF-e list (contract 2.7, 4.10) and the detail's path parameter.
// Query parameters are typed (validation.ts checks their text first); list-query.ts checks the
// calendar and the period.
import { type Static, Type } from 'typebox';
import { nullable } from '../../http/nullable.ts';
import { flagParameter, idParameter, restaurantIdParameter } from '../../http/parameters.ts';
import { nameSchema } from '../../http/schema-names.ts';
import { explainedPattern } from '../../http/validation.ts';

const DATE_TIME_PATTERN =
  '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})?$';

const dateTime = (description: string) =>
  Type.String({
    ...explainedPattern(
      DATE_TIME_PATTERN,
      'must be a date-time with seconds (no offset means UTC)',
      '2026-09-01T00:00:00-03:00',
    ),
    description,
  });

export const NfeListQuery = Type.Object(
  {
    start_date: dateTime(
      'Start of the period, included: ISO 8601 date-time with seconds; no offset means UTC.',
    ),
    end_date: dateTime('End of the period, included to the second; at most 92 days after start_date.'),
    pendente: flagParameter(
      'true: manifestation null, ciencia or desconhecimento. false or absent: only confirmacao.',
    ),
    brand_id: Type.Optional(
      idParameter(
        'One brand (GET /v1/brands). Absent: the default brand (or the first by id), with the notes that have no brand.',
      ),
    ),
    restaurant_id: restaurantIdParameter(),
  },
  { additionalProperties: false },
);

export type NfeListQuerystring = Static<typeof NfeListQuery>;

export const NfeDetailParams = Type.Object({
  nfe_received_id: idParameter('Internal record id, not the access key.'),
});

/** The query of the brands and of the detail: the restaurant alone. */
export const RestaurantQuery = Type.Object(
  { restaurant_id: restaurantIdParameter() },
  { additionalProperties: false },
);

/** Text or null. */
export const text = nullable(Type.String());
const instant = nullable(Type.String({ format: 'date-time' }));

/** The common fields (2.7); the detail replaces some with the provider's values. */
export const nfeCommonFields = {
  id: Type.Integer(),
  restaurant_id: Type.Integer(),
  brand_id: nullable(Type.Integer()),
  brand: nullable(Type.Object({ id: Type.Integer(), name: Type.String(), fantasy_name: text, cnpj: text })),
  identification: Type.Object({
    access_key: Type.String(),
    number: text,
    series: text,
    state: text,
    type: text,
  }),
  issuer: Type.Object({ name: Type.String(), document: Type.String() }),
  amounts: Type.Object({
    total: Type.String({ description: 'List: two decimals. Detail: the provider precision.' }),
  }),
  status: Type.Object({ situation: Type.String(), complete: Type.Boolean() }),
  manifestation: Type.Object({ type: text, manifested_at: instant }),
  correction: Type.Object({
    number: nullable(Type.Integer()),
    text,
    issued_at: instant,
  }),
  cancellation: Type.Object({ canceled_at: instant, reason: text, locally_canceled_at: instant }),
  references: Type.Object({
    return_reference: text,
    reference: text,
    url: text,
    provider_id: nullable(Type.Integer()),
  }),
  fiscal: Type.Object({
    version: Type.Integer(),
    digest: text,
    sped: Type.Unknown({ description: 'Stored SPED JSON, or null.' }),
  }),
  timestamps: Type.Object({
    issued_at: Type.String({ description: 'List: UTC. Detail: the provider text, keeping its offset.' }),
    processing_at: instant,
    created_at: instant,
    updated_at: instant,
  }),
};

export const NfeListResponse = Type.Array(nameSchema('NfeReceived', Type.Object(nfeCommonFields)));

/** GET /v1/brands: `fiscal_configured` says whether the brand has a fiscal token, never the token. */
const Brand = nameSchema(
  'Brand',
  Type.Object(
    {
      id: Type.Integer({ description: 'The brand_id of GET /v1/nfe-received.' }),
      name: Type.String(),
      fantasy_name: text,
      cnpj: nullable(Type.String({ description: 'Text, leading zeros kept.' })),
      is_default: Type.Boolean({ description: 'The brand the NF-e list uses without brand_id.' }),
      fiscal_configured: Type.Boolean({
        description: 'Whether the brand has a fiscal provider credential (else the NF-e detail is 503).',
      }),
    },
    { additionalProperties: false },
  ),
);

export const BrandList = Type.Object(
  { data: Type.Array(Brand, { description: 'In id order; deleted brands are left out.' }) },
  { additionalProperties: false },
);
