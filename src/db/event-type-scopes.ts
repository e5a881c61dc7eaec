// The read scopes of each event type as rows of event_type_scopes, for migration 0022's triggers:
// written from EVENT_TYPE_SCOPES (event-scopes.ts, the one definition) by migrate() after the
// migrations, so the database always holds the mapping of the code that runs. Writes only when the
// rows differ: an instance starting on an unchanged database writes nothing.
import { EVENT_TYPE_SCOPES } from './event-scopes.ts';
import type { Db, EventTypeScopesTable } from './types.ts';

const key = (rows: EventTypeScopesTable[]) =>
  rows
    .map((r) => `${r.type} ${r.scope} ${r.position}`)
    .sort()
    .join('\n');

/** Returns whether it wrote the rows. */
export async function syncEventTypeScopes(trx: Db): Promise<boolean> {
  const wanted: EventTypeScopesTable[] = Object.entries(EVENT_TYPE_SCOPES).flatMap(([type, scopes]) =>
    scopes.map((scope, position) => ({ type, scope, position })),
  );
  const stored = await trx.selectFrom('event_type_scopes').select(['type', 'scope', 'position']).execute();
  if (key(stored) === key(wanted)) return false;
  await trx.deleteFrom('event_type_scopes').execute();
  await trx.insertInto('event_type_scopes').values(wanted).execute();
  return true;
}
