// Every secret a rotation replaced keeps signing for its own 24 hours (issue 28), not only the
// last one: webhook_endpoints.previous_secrets holds them, newest first, each
// `{ "secret_encrypted": "v1:…", "expires_at": "<ISO instant>" }` (encrypted as secret_encrypted
// is), at most a few (src/modules/webhooks/endpoint-service.ts). previous_secret_expires_at stays:
// the newest rotation's expiry, the latest of them. The one previous secret of 0012 moves into the
// list while it still signs. previous_secret_encrypted stays, written with the newest replaced
// secret, so that instances of the release before this one, still running during a rolling
// restart, claim and sign deliveries as they did.
import { type Kysely, sql } from 'kysely';

const statements = [
  sql`alter table webhook_endpoints add column previous_secrets jsonb not null default '[]'`,
  sql`update webhook_endpoints set previous_secrets = jsonb_build_array(jsonb_build_object(
      'secret_encrypted', previous_secret_encrypted,
      'expires_at', to_char(previous_secret_expires_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')))
    where previous_secret_encrypted is not null and previous_secret_expires_at > now()`,
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await statement.execute(db);
}
