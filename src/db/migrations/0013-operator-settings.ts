// Operators' state: `settings` holds the fingerprints of the server secrets (never the secrets),
// so a process started with another FISCAL_TOKEN_KEY or RESTAURANT_SESSION_SECRET refuses to
// start instead of writing with it; `staff_users.disabled_at` marks a console account that may no
// longer sign in (`comanda user disable`).
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create table settings (
    name text primary key,
    value text not null,
    updated_at timestamptz(3) not null default now()
  )`.execute(db);
  await sql`alter table staff_users add column disabled_at timestamptz(3)`.execute(db);
}
