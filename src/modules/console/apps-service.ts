// Installed applications of a restaurant: listing, removal, and installation by consent.
// Approving an application on the consent page installs it for the restaurant (if it was not)
// and issues the authorization code in the same transaction.
import type { Db } from '../../db/database.ts';
import type { AuthorizeQuery } from '../auth/authorize.ts';
import { createCode } from '../auth/authorization-codes.ts';
import type { ClientCredential } from '../auth/oauth-clients.ts';
import { deleteInstallation, insertInstallation, listInstallations } from './apps-repository.ts';

export type InstalledApp = {
  id: number;
  clientId: string;
  name: string;
  scopes: string[];
  grantTypes: string[];
  status: 'active' | 'disabled';
  lastUsedAt: Date | null;
};

export async function installedApps(db: Db, restaurantId: number): Promise<InstalledApp[]> {
  const rows = await listInstallations(db, restaurantId);
  return rows.map((row) => ({
    id: row.id,
    clientId: row.client_id,
    name: row.name,
    scopes: row.scopes,
    grantTypes: row.grant_types,
    status: row.revoked_at ? 'disabled' : 'active',
    lastUsedAt: row.last_used_at ? new Date(row.last_used_at) : null,
  }));
}

export async function findInstalledApp(db: Db, restaurantId: number, id: number) {
  return (await installedApps(db, restaurantId)).find((app) => app.id === id) ?? null;
}

export function removeApp(db: Db, oauthClientId: number, restaurantId: number): Promise<boolean> {
  return db.transaction().execute((tx) => deleteInstallation(tx, oauthClientId, restaurantId, new Date()));
}

export function approveApp(
  db: Db,
  client: ClientCredential,
  query: AuthorizeQuery,
  grant: { restaurantId: number; scopes: string[] },
): Promise<string> {
  return db.transaction().execute(async (tx) => {
    await insertInstallation(tx, client.id, grant.restaurantId);
    const code = { oauthClientId: client.id, redirectUri: query.redirect_uri!, codeChallenge: query.code_challenge! };
    return createCode(tx, { ...code, ...grant }, new Date());
  });
}
