// Deliveries are made after the commit, not by the writing transaction: a write of events leaves
// one small row per restaurant (and transaction) in webhook_fanout when the restaurant has an
// enabled endpoint, whatever the number of events and endpoints, and the webhook worker hands that
// transaction's events to the endpoints (src/modules/webhooks/fanout.ts). The row commits with the
// events or not at all, so no event is handed out before its commit or after a rollback, and no
// instance waits for other transactions to end. An endpoint is handed the events of transactions
// after its own (created_xid): those before it found no endpoint or were handed out already.
import { type Kysely, sql } from 'kysely';

const statements = [
  sql`alter table webhook_endpoints add column created_xid xid8 not null default pg_current_xact_id()`,
  sql`create table webhook_fanout (
    restaurant_id integer not null,
    xid xid8 not null,
    primary key (restaurant_id, xid)
  )`,
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await statement.execute(db);
}
