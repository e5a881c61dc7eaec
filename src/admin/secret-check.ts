// The database keeps a fingerprint of each server secret (HMAC-SHA256 of a fixed label, keyed
// with the secret: it tells whether two keys are the same, never the key). The server and every
// CLI command compare theirs before anything else: a key that differs stops the process with one
// line naming the variable (a configuration error, exit code 2), and writes nothing. The first
// start records them.
import { createHmac } from 'node:crypto';
import { type Config, ConfigError } from '../config.ts';
import type { Db } from '../db/database.ts';
import { decryptSecret } from '../lib/encryption.ts';
import type { Secrets, Unsaved } from '../lib/secrets-store.ts';

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

/** `generated`: the key was generated just now (nothing in secrets.json), and is not saved. */
function mismatch(config: Config, variable: Variable, generated: boolean): ConfigError {
  const file = `${config.dataDir}/secrets.json`;
  const where = fromEnvironment(config, variable)
    ? `${variable} is not the key this database was written with`
    : generated
      ? `${variable} is not set and ${file} holds none, but this database was written with one`
      : `${variable} is not set, and the one generated in ${file} is not the key this database was written with`;
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

/**
 * Compares every recorded fingerprint first, then records the missing ones. `unsaved`: secrets
 * generated just now (secrets-store.ts), written to DATA_DIR/secrets.json only before their
 * fingerprints are recorded, so a refused start leaves no file behind.
 */
export async function checkSecrets(
  db: Db,
  config: Config,
  secrets: Secrets,
  unsaved: Unsaved = { names: [], save() {} },
): Promise<void> {
  const missing: [keyof Secrets, Variable][] = [];
  for (const [field, variable] of Object.entries(SECRET_VARIABLES) as [keyof Secrets, Variable][]) {
    const stored = await recorded(db, variable);
    const generated = unsaved.names.includes(field);
    if (!stored) {
      if (field === 'fiscalTokenKey' && !(await opensStoredTokens(db, secrets[field]))) {
        throw mismatch(config, variable, generated);
      }
      missing.push([field, variable]);
    } else if (stored !== fingerprint(variable, secrets[field])) {
      throw mismatch(config, variable, generated);
    }
  }
  if (missing.length) unsaved.save();
  for (const [field, variable] of missing) {
    // Two first starts at once: the one that loses the insert compares with the winner's.
    await db
      .insertInto('settings')
      .values({ name: settingName(variable), value: fingerprint(variable, secrets[field]) })
      .onConflict((oc) => oc.column('name').doNothing())
      .execute();
    if ((await recorded(db, variable)) !== fingerprint(variable, secrets[field])) {
      throw mismatch(config, variable, false);
    }
  }
}

async function recorded(db: Db, variable: Variable): Promise<string | undefined> {
  const row = await db
    .selectFrom('settings')
    .select('value')
    .where('name', '=', settingName(variable))
    .executeTakeFirst();
  return row?.value;
}
