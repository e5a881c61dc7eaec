import assert from 'node:assert/strict';
import { type TestContext, test } from 'node:test';
import { verifySession } from '../../src/modules/auth/session-token.ts';
import { endConsoleSession, startConsoleSession } from '../../src/modules/console/staff-service.ts';
import { buildTestApp } from '../support/app.ts';
import { sessionFor } from '../support/tokens.ts';

/** An app with a data route, restaurant 1 and one staff member. */
async function signedInWorld(t: TestContext) {
  const { app, ctx } = await buildTestApp(t, {
    routes: (a) =>
      a.get('/v1/test-session', { config: { scope: 'products:read' } }, async (r) => ({
        id: r.restaurantId,
      })),
  });
  const db = ctx.db;
  await db.insertInto('restaurants').values({ id: 1, name: 'R' }).execute();
  const { id: staffId } = await db
    .insertInto('staff_users')
    .values({ email: 'a@example.com', password_hash: 'x' } as never)
    .returning('id')
    .executeTakeFirstOrThrow();
  return { app, ctx, db, staffId };
}

test('a restaurant session whose console sign-in was ended is refused on data routes at once', async (t) => {
  const { app, ctx, db, staffId } = await signedInWorld(t);
  const { authorization } = sessionFor(1, ctx.secrets.sessionSecret);
  const jti = verifySession(authorization.slice(7), ctx.secrets.sessionSecret)!.jti;
  const now = new Date();
  await db
    .insertInto('console_sessions')
    .values({
      id: jti,
      staff_user_id: staffId,
      restaurant_id: 1,
      created_at: now,
      expires_at: new Date(now.getTime() + 3600e3),
    } as never)
    .execute();
  const call = () => app.inject({ method: 'GET', url: '/v1/test-session', headers: { authorization } });
  assert.equal((await call()).statusCode, 200, 'valid while signed in');
  await db
    .updateTable('console_sessions')
    .set({ ended_at: new Date() } as never)
    .where('id', '=', jti)
    .execute();
  const after = await call();
  assert.equal(after.statusCode, 401);
  assert.equal(after.json().key, 'invalid_token');
});

test('an ended console sign-in stays refused after the member signs in again', async (t) => {
  const { app, ctx, db, staffId } = await signedInWorld(t);
  const call = (token: string) =>
    app.inject({ method: 'GET', url: '/v1/test-session', headers: { authorization: `Bearer ${token}` } });
  const first = await startConsoleSession(ctx, staffId, 1);
  assert.equal((await call(first)).statusCode, 200, 'valid while signed in');
  await endConsoleSession(db, verifySession(first, ctx.secrets.sessionSecret)!.jti);
  assert.equal((await call(first)).statusCode, 401, 'refused once signed out');
  const second = await startConsoleSession(ctx, staffId, 1);
  assert.equal((await call(second)).statusCode, 200);
  const again = await call(first);
  assert.equal(again.statusCode, 401, 'the signed-out session is still refused');
  assert.equal(again.json().key, 'invalid_token');
});
