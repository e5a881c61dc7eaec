// app.installed and app.revoked: an application's installation at a restaurant begins (a first
// consent) or ends (removed in the console), recorded in that transaction.
import type { Db } from '../../db/database.ts';
import { recordEvents } from './outbox.ts';

export async function recordAppEvent(
  trx: Db,
  type: 'app.installed' | 'app.revoked',
  oauthClientId: number,
  restaurantId: number,
  scopes: string[] = [],
): Promise<void> {
  const client = await trx
    .selectFrom('oauth_clients')
    .select(['client_id', 'name'])
    .where('id', '=', oauthClientId)
    .executeTakeFirstOrThrow();
  const data = {
    client_id: client.client_id,
    name: client.name,
    ...(type === 'app.installed' ? { scopes } : {}),
  };
  await recordEvents(trx, [{ restaurant_id: restaurantId, type, data }]);
}
