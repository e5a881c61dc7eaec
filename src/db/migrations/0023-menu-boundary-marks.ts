// menu_boundary_marks: for each restaurant, where the menu's schedule clock stands, so that a
// periodic job of every instance (src/modules/menu/boundary-job.ts) writes one menu.updated when
// the time crosses a schedule boundary. A row holds the catalog version and time zone its
// boundaries were computed at, the instant up to which they were accounted for (checked_at, null
// until the first computation) and the next boundary after it (next_at, null when the menu has no
// schedule that opens or closes). The job claims due rows (next_at passed, or the restaurant's
// catalog_version or timezone no longer those of the row) with FOR UPDATE SKIP LOCKED, so an
// instance that claims a row decides its boundary alone.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create table menu_boundary_marks (
    restaurant_id integer primary key references restaurants(id) on delete cascade,
    catalog_version bigint not null,
    timezone text not null,
    checked_at timestamptz,
    next_at timestamptz
  )`.execute(db);
  await sql`create index menu_boundary_marks_next_at on menu_boundary_marks (next_at)`.execute(db);
}
