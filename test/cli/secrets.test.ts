// Secrets that cannot silently disagree: fingerprints in the database, checked by the server and
// every CLI command, and the rotation of the fiscal token key.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { Insertable } from 'kysely';
import { COMMANDS, type CommandContext, CommandError } from '../../src/admin/commands.ts';
import { checkSecrets, fingerprint } from '../../src/admin/secret-check.ts';
import { ConfigError } from '../../src/config.ts';
import type { Db } from '../../src/db/database.ts';
import type { WebhookEndpointsTable } from '../../src/db/types.ts';
import { decryptSecret, encryptSecret } from '../../src/lib/encryption.ts';
import { world } from '../import/world.ts';
import { testConfig } from '../support/app.ts';
import { createTestDatabase, testDatabaseUrl } from '../support/database.ts';
import { cliEnv, runCli, seededDataDir, tempDir } from './cli-process.ts';

const KEY_A = 'fiscal-key-a-of-at-least-thirty-two-characters';
const KEY_B = 'fiscal-key-b-of-at-least-thirty-two-characters';
const SESSION = 'session-secret-of-at-least-thirty-two-characters';

async function freshContext(t: { after(fn: () => Promise<void>): void }, fiscalTokenKey = KEY_A) {
  const database = await createTestDatabase();
  t.after(() => database.close());
  const config = testConfig({ fiscalTokenKey, restaurantSessionSecret: SESSION });
  const ctx: CommandContext = {
    db: database.db,
    config,
    secrets: { sessionSecret: SESSION, fiscalTokenKey },
  };
  return ctx;
}

/** Brand 10's fiscal token, opened with `key`. */
type EndpointSecrets = Pick<
  Insertable<WebhookEndpointsTable>,
  'secret_encrypted' | 'previous_secret_encrypted' | 'previous_secrets' | 'previous_secret_expires_at'
>;

/** A webhook endpoint of restaurant 1 with these stored secrets; its id. */
async function addEndpoint(db: Db, secrets: EndpointSecrets): Promise<number> {
  const { id } = await db
    .insertInto('webhook_endpoints')
    .values({
      restaurant_id: 1,
      url: 'https://hooks.example.com/comanda',
      events: ['order.created'],
      ...secrets,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return id;
}

async function brandToken(db: Db, key: string): Promise<string> {
  const brand = await db
    .selectFrom('brands')
    .select('fiscal_token_encrypted')
    .where('id', '=', 10)
    .executeTakeFirstOrThrow();
  return decryptSecret(brand.fiscal_token_encrypted!, key);
}

test('the first start records a fingerprint of each secret, never the secret itself', async (t) => {
  const ctx = await freshContext(t);
  await checkSecrets(ctx.db, ctx.config, ctx.secrets);
  const rows = await ctx.db.selectFrom('settings').select(['name', 'value']).orderBy('name').execute();
  assert.deepEqual(rows, [
    { name: 'fingerprint:FISCAL_TOKEN_KEY', value: fingerprint('FISCAL_TOKEN_KEY', KEY_A) },
    {
      name: 'fingerprint:RESTAURANT_SESSION_SECRET',
      value: fingerprint('RESTAURANT_SESSION_SECRET', SESSION),
    },
  ]);
  assert.ok(rows.every((r) => !r.value.includes(KEY_A) && !r.value.includes(SESSION)));
  await checkSecrets(ctx.db, ctx.config, ctx.secrets);
});

test('a key that differs from the recorded one is refused with a line naming its variable', async (t) => {
  const ctx = await freshContext(t);
  await checkSecrets(ctx.db, ctx.config, ctx.secrets);
  await assert.rejects(
    checkSecrets(ctx.db, ctx.config, { ...ctx.secrets, fiscalTokenKey: KEY_B }),
    (err: Error) =>
      err instanceof ConfigError &&
      /^FISCAL_TOKEN_KEY is not the key this database was written with/.test(err.message),
  );
  const otherSession = { ...ctx.secrets, sessionSecret: `${SESSION}-other` };
  await assert.rejects(checkSecrets(ctx.db, ctx.config, otherSession), /^Error: RESTAURANT_SESSION_SECRET /);
});

test('a database whose fiscal tokens were written before fingerprints refuses a key that cannot open them', async (t) => {
  const ctx = await freshContext(t);
  await COMMANDS.import(ctx, { data: world() });
  await ctx.db.deleteFrom('settings').execute();
  await assert.rejects(
    checkSecrets(ctx.db, ctx.config, { ...ctx.secrets, fiscalTokenKey: KEY_B }),
    /FISCAL_TOKEN_KEY is not the key/,
  );
  await checkSecrets(ctx.db, ctx.config, ctx.secrets);
});

test('rotate-fiscal-key re-encrypts every brand token with the new key and records its fingerprint', async (t) => {
  const ctx = await freshContext(t);
  await checkSecrets(ctx.db, ctx.config, ctx.secrets);
  await COMMANDS.import(ctx, { data: world() });
  const result = (await COMMANDS['secrets rotate-fiscal-key'](ctx, { new_key: KEY_B })) as any;
  assert.deepEqual(result, {
    brands: 1,
    variable: 'FISCAL_TOKEN_KEY',
    new_key: undefined,
    stored_in: undefined,
  });
  assert.equal(await brandToken(ctx.db, KEY_B), 'tok-bella');
  assert.equal(ctx.secrets.fiscalTokenKey, KEY_B);
  await checkSecrets(ctx.db, ctx.config, { ...ctx.secrets, fiscalTokenKey: KEY_B });
  await assert.rejects(
    checkSecrets(ctx.db, ctx.config, { ...ctx.secrets, fiscalTokenKey: KEY_A }),
    /FISCAL_TOKEN_KEY/,
  );
});

test('rotate-fiscal-key re-encrypts the webhook endpoint secrets (current and every previous one) with the new key', async (t) => {
  const ctx = await freshContext(t);
  await checkSecrets(ctx.db, ctx.config, ctx.secrets);
  await COMMANDS.import(ctx, { data: world() });
  const later = (hours: number) => new Date(Date.now() + hours * 3600_000).toISOString();
  const [previousUntil, olderUntil] = [later(20), later(2)];
  const id = await addEndpoint(ctx.db, {
    secret_encrypted: encryptSecret('whsec_current', KEY_A),
    previous_secret_encrypted: encryptSecret('whsec_previous', KEY_A),
    previous_secrets: JSON.stringify([
      { secret_encrypted: encryptSecret('whsec_previous', KEY_A), expires_at: previousUntil },
      { secret_encrypted: encryptSecret('whsec_older', KEY_A), expires_at: olderUntil },
    ]),
    previous_secret_expires_at: previousUntil,
  });
  await COMMANDS['secrets rotate-fiscal-key'](ctx, { new_key: KEY_B });
  const endpoint = await ctx.db
    .selectFrom('webhook_endpoints')
    .select(['secret_encrypted', 'previous_secret_encrypted', 'previous_secrets'])
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
  assert.equal(decryptSecret(endpoint.secret_encrypted, KEY_B), 'whsec_current');
  assert.equal(decryptSecret(endpoint.previous_secret_encrypted ?? '', KEY_B), 'whsec_previous');
  assert.deepEqual(
    endpoint.previous_secrets.map((secret) => [
      decryptSecret(secret.secret_encrypted, KEY_B),
      secret.expires_at,
    ]),
    [
      ['whsec_previous', previousUntil],
      ['whsec_older', olderUntil],
    ],
  );
});

test('rotate-fiscal-key changes nothing when a webhook secret does not open with the current key', async (t) => {
  const ctx = await freshContext(t);
  await COMMANDS.import(ctx, { data: world() });
  await addEndpoint(ctx.db, { secret_encrypted: encryptSecret('whsec_current', KEY_B) });
  await assert.rejects(
    COMMANDS['secrets rotate-fiscal-key'](ctx, { new_key: `${KEY_A}-new` }),
    (err: Error) => err instanceof CommandError && /webhook endpoint .*nothing was changed/.test(err.message),
  );
  assert.equal(await brandToken(ctx.db, KEY_A), 'tok-bella');
});

test('rotate-fiscal-key changes nothing when a previous webhook secret does not open with the current key', async (t) => {
  const ctx = await freshContext(t);
  await COMMANDS.import(ctx, { data: world() });
  const expiresAt = new Date(Date.now() + 3600_000).toISOString();
  const id = await addEndpoint(ctx.db, {
    secret_encrypted: encryptSecret('whsec_current', KEY_A),
    previous_secrets: JSON.stringify([
      { secret_encrypted: encryptSecret('whsec_previous', KEY_B), expires_at: expiresAt },
    ]),
  });
  await assert.rejects(
    COMMANDS['secrets rotate-fiscal-key'](ctx, { new_key: `${KEY_A}-new` }),
    (err: Error) =>
      err instanceof CommandError &&
      /webhook endpoint .*previous secret.*nothing was changed/.test(err.message),
  );
  const endpoint = await ctx.db
    .selectFrom('webhook_endpoints')
    .select('secret_encrypted')
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
  assert.equal(decryptSecret(endpoint.secret_encrypted, KEY_A), 'whsec_current');
});

test('rotate-fiscal-key changes nothing when a token does not open with the current key', async (t) => {
  const ctx = await freshContext(t);
  await COMMANDS.import(ctx, { data: world() });
  const wrong = { ...ctx, secrets: { ...ctx.secrets, fiscalTokenKey: KEY_B } };
  await assert.rejects(
    COMMANDS['secrets rotate-fiscal-key'](wrong, { new_key: `${KEY_A}-new` }),
    (err: Error) => err instanceof CommandError && /nothing was changed/.test(err.message),
  );
  assert.equal(await brandToken(ctx.db, KEY_A), 'tok-bella');
  assert.equal(await ctx.db.selectFrom('settings').select('name').executeTakeFirst(), undefined);
});

test('rotate-fiscal-key changes nothing when the generated key cannot be stored in DATA_DIR', async (t) => {
  const ctx = await freshContext(t);
  await checkSecrets(ctx.db, ctx.config, ctx.secrets);
  await COMMANDS.import(ctx, { data: world() });
  const dataDir = tempDir(t);
  mkdirSync(join(dataDir, 'secrets.json')); // a write there fails (EISDIR)
  const generated = { ...ctx, config: { ...ctx.config, fiscalTokenKey: undefined, dataDir } };
  await assert.rejects(
    COMMANDS['secrets rotate-fiscal-key'](generated, {}),
    (err: Error) =>
      err instanceof CommandError && /cannot store the new key.*nothing was changed/.test(err.message),
  );
  assert.equal(await brandToken(ctx.db, KEY_A), 'tok-bella');
  assert.equal(ctx.secrets.fiscalTokenKey, KEY_A);
  await checkSecrets(ctx.db, ctx.config, ctx.secrets);
});

test('a CLI command run with another key exits 2 naming the variable; rotation prints what to set', async (t) => {
  const dataDir = await seededDataDir(t);
  const env = cliEnv(dataDir, { FISCAL_TOKEN_KEY: KEY_A, RESTAURANT_SESSION_SECRET: SESSION });
  const file = join(tempDir(t), 'world.json');
  writeFileSync(file, JSON.stringify(world()));
  assert.equal((await runCli(['import', file, '--json'], env)).code, 0);

  const wrong = await runCli(['api-key', 'list'], { ...env, FISCAL_TOKEN_KEY: KEY_B });
  assert.equal(wrong.code, 2);
  assert.match(
    wrong.stderr,
    /^configuration error: FISCAL_TOKEN_KEY is not the key this database was written with/,
  );
  assert.equal(wrong.stderr.split('\n').length, 2);

  const rotated = await runCli(['secrets', 'rotate-fiscal-key'], env);
  assert.equal(rotated.code, 0, rotated.stderr);
  const newKey = /^FISCAL_TOKEN_KEY=(\S+)$/m.exec(rotated.stdout)?.[1];
  assert.ok(newKey && newKey.length >= 32, rotated.stdout);
  assert.equal((await runCli(['api-key', 'list'], env)).code, 2);
  const after = await runCli(['api-key', 'list'], { ...env, FISCAL_TOKEN_KEY: newKey });
  assert.equal(after.code, 0, after.stderr);
  assert.ok(!existsSync(join(dataDir, 'secrets.json')), 'with both variables set, nothing is written');
});

test('a CLI command refused because a secret is not set leaves no generated secrets.json behind', async (t) => {
  // On PostgreSQL DATA_DIR holds nothing else: a refused command must not even create it.
  const database = testDatabaseUrl ? await createTestDatabase() : undefined;
  t.after(() => database?.close());
  const dataDir = database ? join(tempDir(t), 'data') : await seededDataDir(t);
  const env = cliEnv(dataDir, {
    FISCAL_TOKEN_KEY: KEY_A,
    RESTAURANT_SESSION_SECRET: SESSION,
    ...(database && { DATABASE_URL: database.url }),
  });
  assert.equal((await runCli(['api-key', 'list'], env)).code, 0); // records the fingerprints
  for (const unset of ['FISCAL_TOKEN_KEY', 'RESTAURANT_SESSION_SECRET']) {
    const refused = await runCli(['api-key', 'list'], { ...env, [unset]: '' });
    assert.equal(refused.code, 2, refused.stderr);
    assert.equal(
      refused.stderr,
      `configuration error: ${unset} is not set and ${dataDir}/secrets.json holds none, but this database was written with one: set ${unset} to that key (docs/operations.md, "Secrets")\n`,
    );
    assert.ok(!existsSync(join(dataDir, 'secrets.json')), `${unset}: no secrets.json`);
  }
  if (database) assert.ok(!existsSync(dataDir), 'no DATA_DIR either');
});

test('a key generated into secrets.json that differs is refused naming the file, which is kept', async (t) => {
  const dataDir = await seededDataDir(t);
  const env = cliEnv(dataDir, { FISCAL_TOKEN_KEY: KEY_A, RESTAURANT_SESSION_SECRET: SESSION });
  assert.equal((await runCli(['api-key', 'list'], env)).code, 0);
  const stored = JSON.stringify({ sessionSecret: SESSION, fiscalTokenKey: KEY_B });
  writeFileSync(join(dataDir, 'secrets.json'), stored);
  const refused = await runCli(['api-key', 'list'], { ...env, FISCAL_TOKEN_KEY: '' });
  assert.equal(refused.code, 2);
  assert.match(
    refused.stderr,
    /^configuration error: FISCAL_TOKEN_KEY is not set, and the one generated in .*secrets\.json is not the key this database was written with/,
  );
  assert.equal(readFileSync(join(dataDir, 'secrets.json'), 'utf8'), stored);
});
