// Wire schemas of the webhook-endpoint routes; they are also the serialiser of their answers.
import { type Static, Type } from 'typebox';
import { nullable } from '../../http/nullable.ts';
import { RestaurantQuery } from '../catalog/schemas.ts';
import { EVENT_TYPES } from '../events/event-types.ts';

export const CreateEndpointBody = Type.Object(
  {
    url: Type.String({
      minLength: 1,
      maxLength: 2048,
      description: 'https, on a host that resolves to public addresses only.',
    }),
    events: Type.Array(Type.String({ enum: EVENT_TYPES }), { minItems: 1, maxItems: EVENT_TYPES.length }),
    description: Type.Optional(Type.String({ maxLength: 500 })),
  },
  { additionalProperties: false },
);

export type CreateEndpointInput = Static<typeof CreateEndpointBody>;

export const EndpointParams = Type.Object(
  { webhookEndpointId: Type.Integer({ minimum: 1, maximum: 2147483647, description: 'The endpoint id.' }) },
  { additionalProperties: false },
);

export const DeliveriesQuery = Type.Object(
  {
    ...RestaurantQuery.properties,
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
  },
  { additionalProperties: false },
);

const instant = Type.String({ format: 'date-time' });
const nullableInstant = nullable(instant);

export const Endpoint = Type.Object(
  {
    id: Type.Integer(),
    url: Type.String(),
    events: Type.Array(Type.String()),
    description: Type.String(),
    status: Type.Union([Type.Literal('enabled'), Type.Literal('disabled')]),
    disabled_at: nullableInstant,
    disabled_reason: nullable(Type.String()),
    previous_secret_expires_at: nullable(instant, {
      description:
        "The latest expiry among the replaced secrets still signing (the last rotation plus 24 hours), or null when none is; until each one's own expiry, deliveries are also signed with the secrets replaced in the last 24 hours (the 5 newest at most).",
    }),
    created_at: instant,
  },
  { additionalProperties: false },
);

export const EndpointWithSecret = Type.Object(
  {
    ...Endpoint.properties,
    secret: Type.String({ description: 'The signing secret (`whsec_…`): shown only in this answer.' }),
  },
  { additionalProperties: false },
);

export const EndpointList = Type.Object({ data: Type.Array(Endpoint) }, { additionalProperties: false });

const Attempt = Type.Object(
  {
    attempted_at: instant,
    status_code: nullable(Type.Integer()),
    duration_ms: Type.Integer(),
    error: nullable(Type.String()),
    response_body: nullable(Type.String({ description: 'The first 1 KB of the answer.' })),
  },
  { additionalProperties: false },
);

export const DeliveryList = Type.Object(
  {
    data: Type.Array(
      Type.Object(
        {
          id: Type.Integer(),
          event_id: Type.String(),
          event_type: Type.String(),
          status: Type.Union([Type.Literal('pending'), Type.Literal('succeeded'), Type.Literal('failed')]),
          next_attempt_at: nullableInstant,
          created_at: instant,
          completed_at: nullableInstant,
          attempts: Type.Array(Attempt),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);

export const TestQueued = Type.Object(
  { delivery_id: Type.Integer(), event_id: Type.String(), event_type: Type.Literal('ping') },
  { additionalProperties: false },
);
