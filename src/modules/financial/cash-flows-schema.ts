// Wire schemas of GET /v1/financial/cash-flows (contract 2.6 and 4.9). Query parameters are
// typed (validation.ts checks their text first); the service turns them into a filter after
// the calendar and period checks.
import { type Static, Type } from 'typebox';
import { nullable } from '../../http/nullable.ts';
import { flagParameter, idParameter, MAX_ID, restaurantIdParameter } from '../../http/parameters.ts';
import { nameSchema } from '../../http/schema-names.ts';

// ajv-formats' full `date` checks the YYYY-MM-DD shape and the calendar (2026-02-30 fails).
const date = (description: string) => Type.String({ format: 'date', description });
const id = (description: string) => Type.Optional(idParameter(description));

export const CashFlowsQuery = Type.Object(
  {
    start_date: date('First day of the period, YYYY-MM-DD.'),
    end_date: date('Last day of the period (included whole), at most 92 calendar days after the first.'),
    date_type: Type.Optional(
      Type.Enum(['due_date', 'competence_date'], {
        type: 'string',
        description: 'Date the period applies to; competence falls back to the due date when absent.',
      }),
    ),
    offset: Type.Optional(
      Type.Integer({ minimum: 0, maximum: MAX_ID, description: 'Main entries to skip (default 0).' }),
    ),
    paid: flagParameter('true = paid/received, false = open.'),
    is_earning: flagParameter('true = revenues, false = expenses.'),
    provider_id: id('Supplier'),
    bank_account_id: id('Bank account'),
    payment_method_id: id('Payment method'),
    category_subcategory_id: id('Cost centre: a main entry matches when it or one of its items has it'),
    restaurant_id: restaurantIdParameter(),
  },
  { additionalProperties: false },
);

export type CashFlowsQuerystring = Static<typeof CashFlowsQuery>;

const Named = nullable(Type.Object({ id: Type.Integer(), name: Type.String() }));

const entryFields = {
  id: Type.Integer(),
  entry_type: Type.Enum(['standalone', 'invoice', 'invoice_item', 'title', 'title_entry']),
  description: nullable(Type.String()),
  value: Type.String({ description: 'Two decimals; a main value equals the sum of its items.' }),
  due_date: Type.String({ format: 'date' }),
  competence_date: nullable(Type.String({ format: 'date' })),
  paid: Type.Boolean(),
  paid_at: nullable(Type.String({ format: 'date-time' })),
  is_earning: Type.Boolean(),
  provider: Named,
  bank_account: Named,
  payment_method: Named,
  category_subcategory: Named,
  counts_for_result: Type.Boolean(),
};

const CashFlowItem = nameSchema('CashFlowItem', Type.Object(entryFields));
const CashFlowEntry = nameSchema(
  'CashFlow',
  Type.Object({ ...entryFields, items: Type.Array(CashFlowItem) }),
);

const money = Type.String({ pattern: '^-?[0-9]+\\.[0-9]{2}$' });

export const CashFlowsResponse = nameSchema(
  'CashFlowsPage',
  Type.Object({
    total: Type.Integer(),
    count: Type.Integer(),
    remaining: Type.Integer(),
    limit: Type.Integer(),
    offset: Type.Integer(),
    start_date: Type.String({ format: 'date' }),
    end_date: Type.String({ format: 'date' }),
    date_type: Type.Enum(['due_date', 'competence_date']),
    totals: Type.Object({
      total_earnings: money,
      total_earnings_paid: money,
      total_expenses: money,
      total_expenses_paid: money,
    }),
    cash_flows: Type.Array(CashFlowEntry),
  }),
);

export { ErrorResponse } from '../../http/error-schema.ts';
