import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { openDatabase } from '../../../src/db/database.ts';
import { migrate } from '../../../src/db/migrate.ts';
import { verifyPassword } from '../../../src/modules/console/passwords.ts';
import { resetStaffPassword } from '../../../src/modules/console/staff-admin.ts';
import { createStaffUser } from '../../../src/modules/console/staff-service.ts';
import { buildTestApp } from '../../support/app.ts';
import { addStaff, csrfOf, PASSWORD, seedRestaurants, Visitor } from './support.ts';

test('staff accounts', async (t) => {
  const { app, ctx } = await buildTestApp(t);
  const [bella] = await seedRestaurants(ctx.db, ['Cantina Bella']);
  const storedOf = (email: string) =>
    ctx.db
      .selectFrom('staff_users')
      .select(['password_hash', 'must_change_password'])
      .where('email', '=', email)
      .executeTakeFirstOrThrow();

  await t.test('a password is stored as salted scrypt with its parameters, never as given', async () => {
    await addStaff(ctx.db, 'Ana@Example.com', [bella]);
    const stored = await storedOf('ana@example.com');
    assert.match(stored.password_hash, /^scrypt\$65536\$8\$1\$[\w-]{22}\$[\w-]{86}$/);
    assert.ok(!stored.password_hash.includes(PASSWORD));
    assert.equal(stored.must_change_password, false);
    assert.ok(await verifyPassword(PASSWORD, stored.password_hash));
    assert.ok(!(await verifyPassword('another password', stored.password_hash)));
    await addStaff(ctx.db, 'twin@example.com', [bella]);
    assert.notEqual((await storedOf('twin@example.com')).password_hash, stored.password_hash, 'salted');
  });

  await t.test(
    'a bad email, a taken email, an unknown restaurant or a short password is refused',
    async () => {
      const attempts: [Parameters<typeof createStaffUser>[1], RegExp][] = [
        [{ email: 'not an email', restaurantIds: [bella], password: PASSWORD }, /not an email address/],
        [
          { email: 'nul\u0000@example.com', restaurantIds: [bella], password: PASSWORD },
          /not an email address/,
        ],
        [{ email: 'ANA@example.com', restaurantIds: [bella], password: PASSWORD }, /already has an account/],
        [
          { email: 'new@example.com', restaurantIds: [999999], password: PASSWORD },
          /restaurant 999999 does not exist/,
        ],
        [{ email: 'new@example.com', restaurantIds: [], password: PASSWORD }, /at least one restaurant/],
        [{ email: 'new@example.com', restaurantIds: [bella], password: 'short' }, /at least 10 characters/],
      ];
      for (const [input, message] of attempts) await assert.rejects(createStaffUser(ctx.db, input), message);
    },
  );

  await t.test(
    'an email is one account whether its accents come composed (NFC) or decomposed (NFD)',
    async () => {
      const composed = 'jos\u00e9@example.com';
      const decomposed = 'jose\u0301@example.com';
      const created = await createStaffUser(ctx.db, {
        email: decomposed,
        restaurantIds: [bella],
        password: PASSWORD,
      });
      assert.equal(created.email, composed);
      await assert.rejects(
        createStaffUser(ctx.db, { email: composed, restaurantIds: [bella], password: PASSWORD }),
        /already has an account/,
      );
      assert.equal((await resetStaffPassword(ctx.db, decomposed)).email, composed);
    },
  );

  await t.test('a password is 10 to 200 characters, not UTF-16 code units', async () => {
    const create = (email: string, password: string) =>
      createStaffUser(ctx.db, { email, restaurantIds: [bella], password });
    // Five emoji are five characters (ten UTF-16 code units); five NFD "é" are five characters too.
    await assert.rejects(create('emoji@example.com', '\u{1F600}'.repeat(5)), /at least 10 characters/);
    await assert.rejects(create('nfd@example.com', 'e\u0301'.repeat(5)), /at least 10 characters/);
    const long = await create('long@example.com', '\u{1F600}'.repeat(150));
    assert.equal(long.email, 'long@example.com', '150 emoji are within 200 characters');
  });

  await t.test('without a password a one-time one is made, to be replaced at the first sign-in', async () => {
    const created = await addStaff(ctx.db, 'bia@example.com', [bella], null);
    assert.match(created.one_time_password!, /^[\w-]{20}$/);
    const bia = new Visitor(app);
    await bia.signIn('bia@example.com', created.one_time_password);
    const other = new Visitor(app);
    await other.signIn('bia@example.com', created.one_time_password);
    const keys = await bia.get('/console/keys');
    assert.equal(keys.statusCode, 303);
    assert.equal(keys.headers.location, '/console/password?next=%2Fconsole%2Fkeys');
    const page = await bia.get(String(keys.headers.location));
    assert.match(page.body, /You signed in with a one-time password/);
    const change = (form: Record<string, string>) =>
      bia.post('/console/password', { csrf: csrfOf(page.body), next: '/console/keys', ...form });
    const wrong = await change({
      current_password: 'nope',
      new_password: 'a new password 1',
      confirm_password: 'a new password 1',
    });
    assert.equal(wrong.statusCode, 400);
    assert.match(wrong.body, /The current password is not right/);
    const mismatch = await change({
      current_password: created.one_time_password!,
      new_password: 'a new password 1',
      confirm_password: 'other',
    });
    assert.match(mismatch.body, /The two new passwords differ/);
    const ok = await change({
      current_password: created.one_time_password!,
      new_password: 'a new password 1',
      confirm_password: 'a new password 1',
    });
    assert.equal(ok.headers.location, '/console/keys');
    assert.equal((await bia.get('/console/keys')).statusCode, 200);
    assert.equal((await other.get('/console/keys')).statusCode, 303, 'the other session was signed out');
    assert.equal(
      (await new Visitor(app).signIn('bia@example.com', created.one_time_password)).statusCode,
      401,
    );
    assert.equal((await new Visitor(app).signIn('bia@example.com', 'a new password 1')).statusCode, 303);
  });

  await t.test(
    '`comanda user create` reads the password from standard input when it is not a terminal',
    async () => {
      const dataDir = mkdtempSync(join(tmpdir(), 'comanda-user-'));
      t.after(() => rmSync(dataDir, { recursive: true, force: true }));
      const database = await openDatabase({ dataDir });
      await migrate(database.db);
      const [restaurant] = await seedRestaurants(database.db, ['Cantina Bella']);
      await database.close();
      const env = { ...process.env, DATABASE_URL: '', DATA_DIR: dataDir, LOG_LEVEL: 'silent' };
      const cli = (input: string, email: string) =>
        spawnSync(
          process.execPath,
          ['src/cli.ts', 'user', 'create', '--restaurant', String(restaurant), '--email', email, '--json'],
          {
            cwd: new URL('../../../', import.meta.url),
            env,
            input,
            encoding: 'utf8',
          },
        );
      const created = cli('piped password 1\n', 'cli@example.com');
      assert.equal(created.status, 0, created.stderr);
      const result = JSON.parse(created.stdout);
      assert.equal(result.email, 'cli@example.com');
      assert.equal(result.one_time_password, undefined, 'a piped password is not echoed');
      const empty = cli('', 'empty@example.com');
      assert.equal(empty.status, 1);
      assert.match(empty.stderr, /standard input is empty/);
      // On a terminal (util-linux `script` gives it one) a one-time password is printed instead.
      const command = `${process.execPath} src/cli.ts user create --restaurant ${restaurant} --email tty@example.com`;
      const tty = spawnSync('script', ['-qec', command, '/dev/null'], {
        cwd: new URL('../../../', import.meta.url),
        env,
        encoding: 'utf8',
      });
      if (tty.error === undefined) {
        assert.equal(tty.status, 0, tty.stdout);
        assert.match(tty.stdout, /One-time password \(shown only now[^\n]*\r?\n\r?\n[\w-]{20}\r?\n/);
      }
      const reopened = await openDatabase({ dataDir });
      const rows = await reopened.db
        .selectFrom('staff_users')
        .select(['email', 'password_hash', 'must_change_password'])
        .orderBy('id')
        .execute();
      await reopened.close();
      const row = rows.find((r) => r.email === 'cli@example.com')!;
      if (tty.error === undefined)
        assert.equal(rows.find((r) => r.email === 'tty@example.com')?.must_change_password, true);
      assert.ok(
        await verifyPassword('piped password 1', row.password_hash),
        'the trailing newline is not part of it',
      );
      assert.equal(row.must_change_password, false);
    },
  );
});
