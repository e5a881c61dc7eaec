// The operator's side of staff accounts: list, reset a password, disable.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { disableStaff, listStaff, resetStaffPassword } from '../../../src/modules/console/staff-admin.ts';
import { buildTestApp } from '../../support/app.ts';
import { addStaff, seedRestaurants, Visitor } from './support.ts';

test('staff accounts managed by the operator', async (t) => {
  const { app, ctx } = await buildTestApp(t);
  const [bella, norte] = await seedRestaurants(ctx.db, ['Cantina Bella', 'Sabor do Norte']);
  await addStaff(ctx.db, 'ana@example.com', [bella, norte]);
  await addStaff(ctx.db, 'bia@example.com', [bella]);

  await t.test('list gives every account with its restaurants and state, by email', async () => {
    const users = await listStaff(ctx.db);
    assert.deepEqual(
      users.map(({ email, restaurant_ids, disabled, must_change_password }) => ({
        email,
        restaurant_ids,
        disabled,
        must_change_password,
      })),
      [
        {
          email: 'ana@example.com',
          restaurant_ids: [bella, norte].sort((a, b) => a - b),
          disabled: false,
          must_change_password: false,
        },
        { email: 'bia@example.com', restaurant_ids: [bella], disabled: false, must_change_password: false },
      ],
    );
  });

  await t.test(
    'reset-password ends every session of the account and the new password must be changed',
    async () => {
      const first = new Visitor(app);
      const second = new Visitor(app);
      assert.equal((await first.signIn('ana@example.com')).statusCode, 303);
      assert.equal((await second.signIn('ana@example.com')).statusCode, 303);
      const reset = await resetStaffPassword(ctx.db, 'ANA@example.com');
      assert.equal(reset.sessions_ended, 2);
      for (const visitor of [first, second]) {
        const page = await visitor.get('/console/keys');
        assert.equal(page.statusCode, 303);
        assert.match(String(page.headers.location), /^\/console\/login/);
      }
      const again = new Visitor(app);
      assert.equal(
        (await again.signIn('ana@example.com')).statusCode,
        401,
        'the old password no longer works',
      );
      await again.signIn('ana@example.com', reset.one_time_password);
      const page = await again.get('/console/keys');
      assert.match(String(page.headers.location), /^\/console\/password/);
    },
  );

  await t.test('a disabled account cannot sign in and its open session ends at once', async () => {
    const bia = new Visitor(app);
    assert.equal((await bia.signIn('bia@example.com')).statusCode, 303);
    assert.equal((await bia.get('/console/keys')).statusCode, 200);
    const disabled = await disableStaff(ctx.db, 'bia@example.com');
    assert.deepEqual(disabled, {
      id: disabled.id,
      email: 'bia@example.com',
      already_disabled: false,
      sessions_ended: 1,
    });
    assert.equal((await bia.get('/console/keys')).statusCode, 303);
    assert.equal((await new Visitor(app).signIn('bia@example.com')).statusCode, 401);
    assert.equal((await disableStaff(ctx.db, 'bia@example.com')).already_disabled, true);
  });

  await t.test('an unknown email is a mistake named in the message', async () => {
    await assert.rejects(
      resetStaffPassword(ctx.db, 'nobody@example.com'),
      /no console account has the email nobody@example.com/,
    );
  });
});
