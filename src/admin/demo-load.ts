// Loading the demo (`comanda demo`, and `serve` on an empty embedded database): the data set
// through the importer, fresh API keys, and the demo console account with a new one-time
// password. On a database that holds data it rewrites the demo's records: it asks first.
import type { Db } from '../db/database.ts';
import { loadDemo } from '../demo/demo.ts';
import { revokeAccessTokens } from '../modules/auth/access-tokens.ts';
import { demoStaffAccount } from '../modules/console/staff-admin.ts';

const DEMO_CONSOLE_EMAIL = 'demo@comanda.example';

/** What a reload replaces, said before it runs (on the terminal). */
export const DEMO_REPLACES =
  'comanda demo rewrites restaurants 1 and 2 and every demo record (catalog, finance, NF-e) to the demo data, replaces API keys 1-3 (the demo keys printed before stop working, with their tokens) and gives the demo console account a new one-time password; records with other ids stay.';

/** What a reload replaced, in what it prints after. */
export const DEMO_REPLACED =
  'It rewrote restaurants 1 and 2 and every demo record to the demo data, replaced API keys 1-3 (the demo keys printed before no longer work, nor their tokens) and gave the demo console account a new one-time password; records with other ids stayed.';

async function holdsData(db: Db): Promise<boolean> {
  const row = await db.selectFrom('restaurants').select('id').limit(1).executeTakeFirst();
  return row !== undefined;
}

export async function loadDemoWithAccount(db: Db, options: { fiscalTokenKey: string; replace?: boolean }) {
  const replaced = await holdsData(db);
  // The CLI asks the person at the terminal, then runs again with replace.
  if (replaced && !options.replace) return { holds_data: true as const };
  const demo = await db.transaction().execute(async (tx) => {
    const loaded = await loadDemo(tx, { fiscalTokenKey: options.fiscalTokenKey });
    // The old demo keys' tokens go with them: a replaced key keeps its id.
    const keyIds = loaded.api_keys.map((k) => k.id);
    const now = new Date();
    for (const apiKeyId of keyIds) await revokeAccessTokens(tx, { apiKeyId }, now);
    await tx
      .updateTable('refresh_token_families')
      .set({ revoked_at: now })
      .where('api_key_id', 'in', keyIds)
      .where('revoked_at', 'is', null)
      .execute();
    const account = await demoStaffAccount(tx, DEMO_CONSOLE_EMAIL, [1, 2]);
    return {
      ...loaded,
      console_account: { email: account.email, one_time_password: account.one_time_password },
    };
  });
  return { ...demo, replaced };
}
