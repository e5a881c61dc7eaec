// Wire schemas of the event feed; they are also the serialiser of its answers.
import { type Static, Type } from 'typebox';
import { nullable } from '../../http/nullable.ts';
import { RestaurantQuery } from '../catalog/schemas.ts';
import { EVENT_TYPES } from './event-types.ts';

const Event = Type.Object(
  {
    id: Type.String({ description: '`evt_` and 32 hex digits; also the webhook-id of its deliveries.' }),
    type: Type.String({ enum: EVENT_TYPES }),
    restaurant_id: Type.Integer(),
    created_at: Type.String({ format: 'date-time' }),
    data: Type.Object(
      {},
      { additionalProperties: true, description: 'What changed; its shape is per type.' },
    ),
  },
  { additionalProperties: false },
);

export const EventsQuery = Type.Object(
  {
    ...RestaurantQuery.properties,
    after: Type.Optional(
      Type.String({ minLength: 1, maxLength: 200, description: '`next_cursor` of the previous page.' }),
    ),
    types: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 500,
        description: `Comma-separated event types (${EVENT_TYPES.join(', ')}); all readable ones when absent.`,
      }),
    ),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 100 })),
  },
  { additionalProperties: false },
);

export type EventsQueryInput = Static<typeof EventsQuery>;

export const EventsPage = Type.Object(
  {
    data: Type.Array(Event),
    next_cursor: nullable(Type.String(), {
      description: 'Pass it as `after` for the next page (also when `has_more` is false, to poll).',
    }),
    has_more: Type.Boolean(),
  },
  { additionalProperties: false },
);
