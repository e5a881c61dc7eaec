// The database keeps a fingerprint of each server secret (HMAC-SHA256 of a fixed label, keyed
// with the secret: it tells whether two keys are the same, never the key). The server and every
// CLI command compare theirs before anything else: a key that differs stops the process with one
// line naming the variable (a configuration error, exit code 2). The first start records them.
import { createHmac } from 'node:crypto';
import { type Config, ConfigError } from '../config.ts';
import type { Db } from '../db/database.ts';
import { decryptSecret } from '../lib/encryption.ts';

export type Secrets = { sessionSecret: string; fiscalTokenKey: string };

const SECRET_VARIABLES = {
  fiscalTokenKey: 'FISCAL_TOKEN_KEY',
  sessionSecret: 'RESTAURANT_SESSION_SECRET',
} as const;

type Variable = (typeof SECRET_VARIABLES)[keyof typeof SECRET_VARIABLES];

export function fingerprint(variable: Variable, key: string): string {
  return createHmac('sha256', key).update(`comanda secret fingerprint: ${variable}`).digest('hex');
}

export const settingName = (variable: Variable) => `fingerprint:${variable}`;

/** Whether `variable` came from the environment (else from DATA_DIR/secrets.json). */
function fromEnvironment(config: Config, variable: Variable): boolean {
  return variable === 'FISCAL_TOKEN_KEY' ? !!config.fiscalTokenKey : !!config.restaurantSessionSecret;
}

function mismatch(config: Config, variable: Variable): ConfigError {
  const where = fromEnvironment(config, variable)
    ? `${variable} is not the key this database was written with`
    : `${variable} is not set, and the one generated in ${config.dataDir}/secrets.json is not the key this database was written with`;
  return new ConfigError(`${where}: set ${variable} to that key (docs/operations.md, "Secrets")`);
}

/** A key recorded for the first time must still open what is already stored with it. */
async function opensStoredTokens(db: Db, key: string): Promise<boolean> {
  const brand = await db
    .selectFrom('brands')
    .select('fiscal_token_encrypted')
    .where('fiscal_token_encrypted', 'is not', null)
    .limit(1)
    .executeTakeFirst();
  if (!brand?.fiscal_token_encrypted) return true;
  try {
    decryptSecret(brand.fiscal_token_encrypted, key);
    return true;
  } catch {
    return false;
  }
}

export async function checkSecrets(db: Db, config: Config, secrets: Secrets): Promise<void> {
  for (const [field, variable] of Object.entries(SECRET_VARIABLES) as [keyof Secrets, Variable][]) {
    const key = secrets[field];
    const name = settingName(variable);
    let stored = await db.selectFrom('settings').select('value').where('name', '=', name).executeTakeFirst();
    if (!stored) {
      if (field === 'fiscalTokenKey' && !(await opensStoredTokens(db, key))) throw mismatch(config, variable);
      // Two first starts at once: the one that loses the insert compares with the winner's.
      await db
        .insertInto('settings')
        .values({ name, value: fingerprint(variable, key) })
        .onConflict((oc) => oc.column('name').doNothing())
        .execute();
      stored = await db
        .selectFrom('settings')
        .select('value')
        .where('name', '=', name)
        .executeTakeFirstOrThrow();
    }
    if (stored.value !== fingerprint(variable, key)) throw mismatch(config, variable);
  }
}
