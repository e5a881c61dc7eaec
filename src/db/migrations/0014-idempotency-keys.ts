// The answers of writes sent with an Idempotency-Key (src/http/idempotency.ts), per credential,
// written in the transaction of the write itself: a write and its stored answer commit together.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table idempotency_keys (
      credential text not null,
      key text not null,
      request_hash text not null,
      status smallint not null,
      body text not null,
      created_at timestamptz(3) not null default now(),
      expires_at timestamptz(3) not null,
      primary key (credential, key)
    )`.execute(db);
  await sql`create index idempotency_keys_expiry on idempotency_keys (expires_at)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table idempotency_keys`.execute(db);
}
