// `comanda secrets rotate-fiscal-key`: re-encrypts every brand's fiscal provider token (and every
// webhook endpoint's signing secret, under the same key) with a new key and records the new key's
// fingerprint, in one transaction (all or nothing). The running process takes the new key at once
// (a server owning DATA_DIR runs this over its admin channel); other servers must be restarted
// with the new FISCAL_TOKEN_KEY.
import { randomBytes } from 'node:crypto';
import type { Db } from '../db/database.ts';
import { decryptSecret, encryptSecret } from '../lib/encryption.ts';
import { storeGeneratedSecret } from '../lib/secrets-store.ts';
import { type CommandContext, CommandError } from './command-context.ts';
import { fingerprint, settingName } from './secret-check.ts';

const VARIABLE = 'FISCAL_TOKEN_KEY';

export async function rotateFiscalKey(ctx: CommandContext, args: Record<string, unknown>) {
  const given = typeof args.new_key === 'string' && args.new_key !== '' ? args.new_key : undefined;
  if (given !== undefined && given.length < 32)
    throw new CommandError('the new key must be at least 32 characters');
  const newKey = given ?? randomBytes(32).toString('base64url');
  if (newKey === ctx.secrets.fiscalTokenKey) throw new CommandError('the new key is the current key');
  const oldKey = ctx.secrets.fiscalTokenKey;
  const storeNewKey = !ctx.config.fiscalTokenKey;
  let generatedFile: string | undefined;
  /** A stored secret under the new key; one that does not open with the current key aborts all. */
  const reencrypt = (stored: string, owner: string) => {
    try {
      return encryptSecret(decryptSecret(stored, oldKey), newKey);
    } catch {
      throw new CommandError(`${owner} does not open with the current key: nothing was changed`);
    }
  };
  const rotation = ctx.db.transaction().execute(async (tx) => {
    const rows = await tx
      .selectFrom('brands')
      .select(['id', 'fiscal_token_encrypted'])
      .where('fiscal_token_encrypted', 'is not', null)
      .orderBy('id')
      .forUpdate()
      .execute();
    for (const row of rows) {
      await tx
        .updateTable('brands')
        .set({
          fiscal_token_encrypted: reencrypt(row.fiscal_token_encrypted!, `brand ${row.id}'s fiscal token`),
        })
        .where('id', '=', row.id)
        .execute();
    }
    // Webhook endpoint secrets are encrypted with the same key (webhooks/endpoint-service.ts).
    const endpoints = await tx
      .selectFrom('webhook_endpoints')
      .select(['id', 'secret_encrypted', 'previous_secret_encrypted', 'previous_secrets'])
      .orderBy('id')
      .forUpdate()
      .execute();
    for (const row of endpoints) {
      const owner = `webhook endpoint ${row.id}'s secret`;
      // Every replaced secret too, expired or not: each is stored under the key.
      const previous = row.previous_secrets.map((secret) => ({
        ...secret,
        secret_encrypted: reencrypt(secret.secret_encrypted, `webhook endpoint ${row.id}'s previous secret`),
      }));
      await tx
        .updateTable('webhook_endpoints')
        .set({
          secret_encrypted: reencrypt(row.secret_encrypted, owner),
          previous_secret_encrypted:
            row.previous_secret_encrypted && reencrypt(row.previous_secret_encrypted, owner),
          previous_secrets: JSON.stringify(previous),
        })
        .where('id', '=', row.id)
        .execute();
    }
    await recordFingerprint(tx, newKey);
    // Stored before the commit: a key that cannot be stored rolls the rotation back, never leaves
    // the tokens under a key nobody has.
    if (storeNewKey) generatedFile = storeKey(ctx, newKey);
    return rows.length;
  });
  const brands = await rotation.catch((err) => {
    // The commit failed after the new key was stored: the file goes back to the key still in use.
    if (generatedFile) storeGeneratedSecret(ctx.config, 'fiscalTokenKey', oldKey);
    throw err;
  });
  ctx.secrets.fiscalTokenKey = newKey;
  return {
    brands,
    variable: VARIABLE,
    // Printed only when this command made the key: the operator has to learn it somehow.
    new_key: given ? undefined : newKey,
    stored_in: generatedFile,
  };
}

function storeKey(ctx: CommandContext, key: string): string {
  try {
    return storeGeneratedSecret(ctx.config, 'fiscalTokenKey', key);
  } catch (err) {
    const reason = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
    throw new CommandError(
      `cannot store the new key in ${ctx.config.dataDir}/secrets.json (${reason}): nothing was changed`,
    );
  }
}

async function recordFingerprint(tx: Db, key: string) {
  const value = fingerprint(VARIABLE, key);
  await tx
    .insertInto('settings')
    .values({ name: settingName(VARIABLE), value })
    .onConflict((oc) => oc.column('name').doUpdateSet({ value, updated_at: new Date() }))
    .execute();
}
