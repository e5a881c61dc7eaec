// Events cost their writer less: no unique index on the event's random id (a B-tree insert at a
// random place per event; nothing looks an event up by id), and a BRIN index on created_at for the
// purge, which only asks for old rows of a table filled in time order.
import { type Kysely, sql } from 'kysely';

const statements = [
  sql`alter table events drop constraint events_id_key`,
  sql`drop index events_created`,
  sql`create index events_created on events using brin (created_at)`,
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await statement.execute(db);
}
