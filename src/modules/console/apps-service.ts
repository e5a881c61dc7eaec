// Installed applications of a restaurant: listing, removal, and installation by consent.
// Approving an application on the consent page installs it for the restaurant (if it was not),
// records who approved which scopes, and issues the authorization code, in one transaction.
import type { Db } from '../../db/database.ts';
import { createCode } from '../auth/authorization-codes.ts';
import type { AuthorizeQuery } from '../auth/authorize.ts';
import type { ClientCredential } from '../auth/oauth-clients.ts';
import { canonicalScopes } from '../auth/scopes.ts';
import { deleteInstallation, listInstallations, recordConsent } from './apps-repository.ts';

export type InstalledApp = {
  id: number;
  clientId: string;
  name: string;
  /** What the restaurant approved; for an installation made by the operator, the client's scopes. */
  scopes: string[];
  approval: { by: string | null; at: Date } | null;
  status: 'active' | 'disabled';
  lastUsedAt: Date | null;
};

export async function installedApps(db: Db, restaurantId: number): Promise<InstalledApp[]> {
  const rows = await listInstallations(db, restaurantId);
  return rows.map((row) => ({
    id: row.id,
    clientId: row.client_id,
    name: row.name,
    scopes: canonicalScopes(row.approved_scopes ?? row.scopes),
    approval: row.consented_at ? { by: row.approved_by, at: row.consented_at } : null,
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
  grant: { restaurantId: number; scopes: string[]; staffUserId: number },
): Promise<string> {
  const now = new Date();
  return db.transaction().execute(async (tx) => {
    await recordConsent(tx, { ...grant, oauthClientId: client.id }, now);
    const code = {
      oauthClientId: client.id,
      redirectUri: query.redirect_uri!,
      codeChallenge: query.code_challenge!,
    };
    return createCode(tx, { ...code, restaurantId: grant.restaurantId, scopes: grant.scopes }, now);
  });
}
