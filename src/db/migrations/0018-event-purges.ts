// event_purges: for each restaurant and event type, the place in commit order (xid, seq) of the
// last event the retention purge deleted, written in the purge's own statement. A feed cursor has
// expired only when an event after it, of a type its feed shows, is gone
// (src/modules/events/feed-service.ts): the cursor of a quiet feed stays valid however old its
// last event is.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create table event_purges (
    restaurant_id integer not null,
    type text not null,
    xid xid8 not null,
    seq bigint not null,
    primary key (restaurant_id, type)
  )`.execute(db);
}
