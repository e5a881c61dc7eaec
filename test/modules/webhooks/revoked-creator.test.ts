import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import { COMMANDS } from '../../../src/admin/commands.ts';
import { revokeApiKey } from '../../../src/modules/auth/api-keys.ts';
import { removeApp } from '../../../src/modules/console/apps-service.ts';
import { revokeKey } from '../../../src/modules/console/keys-service.ts';
import { claimDue } from '../../../src/modules/webhooks/delivery-repository.ts';
import { fanOut } from '../../../src/modules/webhooks/fanout.ts';
import { testDatabaseUrl } from '../../support/database.ts';
import {
  ALL_SCOPES,
  appWithToken,
  eventsWorld,
  keyWithToken,
  raceConnection,
  worldWorker,
} from '../../support/events-world.ts';
import { startReceiver } from '../../support/receiver.ts';
import { bearerFor, sessionFor } from '../../support/tokens.ts';

test('the endpoints of a credential that loses the restaurant are disabled', async (t) => {
  const world = await eventsWorld(t, { webhookAllowPrivate: true });
  const { app, db, ctx, restaurant, other, products, otherProduct } = world;
  const receiver = await startReceiver(t);
  const worker = worldWorker(t, world, { timeoutMs: 500 });

  const key = (name: string, restaurantIds: number[], scopes = ALL_SCOPES) =>
    keyWithToken(db, name, restaurantIds, scopes);
  const staff = sessionFor(restaurant, ctx.secrets.sessionSecret).authorization;
  const api = (
    authorization: string,
    method: 'GET' | 'POST',
    url: string,
    at = restaurant,
    payload?: object,
  ) => app.inject({ method, url: `${url}?restaurant_id=${at}`, headers: { authorization }, payload });
  /** An endpoint made by `authorization`, delivering to `path` on the receiver. */
  async function endpoint(
    authorization: string,
    path: string,
    at = restaurant,
    events = ['product.updated'],
  ) {
    const res = await api(authorization, 'POST', '/v1/webhook-endpoints', at, {
      url: receiver.url(path),
      events,
    });
    assert.equal(res.statusCode, 201, res.body);
    return res.json().id as number;
  }
  const creator = async (id: number) =>
    db
      .selectFrom('webhook_endpoints')
      .select(['api_key_id', 'oauth_client_id'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
  const otherStaff = sessionFor(other, ctx.secrets.sessionSecret).authorization;
  const read = async (id: number, at = restaurant) =>
    (await api(at === restaurant ? staff : otherStaff, 'GET', `/v1/webhook-endpoints/${id}`, at)).json();
  const edit = (name: string, id = products[0], authorization = staff) =>
    app.inject({ method: 'PUT', url: `/v1/products/${id}`, headers: { authorization }, payload: { name } });
  /** The paths the receiver got an event on, from the `from`-th request on. */
  const pathsFrom = (from: number) => receiver.received.slice(from).map((r) => r.path);

  const keep = await key('kept', [restaurant]);
  const gone = await key('revoked', [restaurant]);
  const keptHook = await endpoint(keep.authorization, '/kept');
  const goneHook = await endpoint(gone.authorization, '/revoked');
  const consoleHook = await endpoint(staff, '/console');

  await t.test(
    'an endpoint names the credential that made it; one made in the console names none',
    async () => {
      assert.deepEqual(await creator(goneHook), { api_key_id: gone.id, oauth_client_id: null });
      assert.deepEqual(await creator(consoleHook), { api_key_id: null, oauth_client_id: null });
    },
  );

  await t.test(
    'revoking an API key disables the endpoints it made, and only those; their pending deliveries are not sent',
    async () => {
      assert.equal((await edit('Margherita Antes')).statusCode, 200);
      assert.equal(await fanOut(db), 1, 'a delivery of each endpoint is pending');
      assert.ok(await revokeKey(db, restaurant, gone.id), 'the console revokes it');
      const revoked = await read(goneHook);
      assert.equal(revoked.status, 'disabled');
      assert.equal(revoked.disabled_reason, 'the API key that created it was revoked');
      assert.equal((await read(keptHook)).status, 'enabled');
      assert.equal((await read(consoleHook)).status, 'enabled');
      const from = receiver.received.length;
      await worker.runOnce();
      assert.deepEqual(pathsFrom(from).sort(), ['/console', '/kept']);
      const { rows } = await sql<{ status: string }>`select status from webhook_deliveries
        where endpoint_id = ${goneHook}`.execute(db);
      assert.deepEqual(
        rows.map((r) => r.status),
        ['failed'],
      );
    },
  );

  await t.test(
    "an event written after the revocation is not delivered to the revoked key's endpoint",
    async () => {
      const from = receiver.received.length;
      assert.equal((await edit('Margherita Depois')).statusCode, 200);
      await worker.runOnce();
      assert.deepEqual(pathsFrom(from).sort(), ['/console', '/kept']);
      const { rows } = await sql`select 1 from webhook_deliveries where endpoint_id = ${goneHook}`.execute(
        db,
      );
      assert.equal(rows.length, 1, 'no delivery of the later event');
    },
  );

  await t.test('revoking a key with the command line disables its endpoints too', async () => {
    const cli = await key('cli', [restaurant]);
    const hook = await endpoint(cli.authorization, '/cli');
    await COMMANDS['api-key revoke'](ctx, { id: cli.id });
    assert.equal((await read(hook)).disabled_reason, 'the API key that created it was revoked');
  });

  await t.test(
    "removing a restaurant from a multi-restaurant key disables only that restaurant's endpoints",
    async () => {
      const both = await key('both', [restaurant, other]);
      const here = await endpoint(both.authorization, '/both-here');
      const there = await endpoint(both.authorization, '/both-there', other);
      const define = (restaurant_ids: number[]) =>
        COMMANDS.import(ctx, {
          data: { api_keys: [{ id: both.id, key: both.key, restaurant_ids, scopes: ALL_SCOPES }] },
        });
      await define([restaurant, other]);
      assert.equal((await read(here)).status, 'enabled', 'defined again with both, it keeps both');
      await define([other]);
      const removed = await read(here);
      assert.equal(removed.status, 'disabled');
      assert.equal(
        removed.disabled_reason,
        'the API key that created it no longer has access to the restaurant',
      );
      assert.equal((await read(there, other)).status, 'enabled');
      const from = receiver.received.length;
      await edit('Margherita Só Lá');
      assert.equal((await edit('Uramaki Ainda', otherProduct, otherStaff)).statusCode, 200);
      await worker.runOnce();
      assert.ok(!pathsFrom(from).includes('/both-here'));
      assert.ok(pathsFrom(from).includes('/both-there'));
    },
  );

  await t.test(
    'removing an application from the restaurant disables the endpoints it made there',
    async () => {
      const scopes = ['webhooks:write', 'webhooks:read', 'products:read'];
      const pos = await appWithToken(db, 'pos', [restaurant, other], scopes);
      const { authorization } = pos;
      const here = await endpoint(authorization, '/app-here');
      const there = await endpoint(authorization, '/app-there', other);
      assert.deepEqual(await creator(here), { api_key_id: null, oauth_client_id: pos.id });
      assert.ok(await removeApp(db, pos.id, restaurant), 'the console removes it');
      const removed = await read(here);
      assert.equal(removed.status, 'disabled');
      assert.equal(
        removed.disabled_reason,
        'the application that created it was removed from the restaurant',
      );
      assert.equal((await read(there, other)).status, 'enabled');
      const from = receiver.received.length;
      await edit('Margherita Sem App');
      await worker.runOnce();
      assert.ok(!pathsFrom(from).includes('/app-here'));
    },
  );

  await t.test(
    'an API key given a new secret, or an application revoked, disables the endpoints they made',
    async () => {
      const replaced = await key('replaced', [restaurant]);
      const hook = await endpoint(replaced.authorization, '/replaced');
      await COMMANDS.import(ctx, {
        data: {
          api_keys: [
            {
              id: replaced.id,
              key: 'ck_test_another_secret',
              restaurant_ids: [restaurant],
              scopes: ALL_SCOPES,
            },
          ],
        },
      });
      assert.equal((await read(hook)).disabled_reason, 'the API key that created it was given a new secret');
      const scopes = ['webhooks:write', 'products:read'];
      const erp = await appWithToken(db, 'erp', [restaurant], scopes);
      const erpHook = await endpoint(erp.authorization, '/erp');
      await db
        .updateTable('oauth_clients')
        .set({ revoked_at: new Date() })
        .where('id', '=', erp.id)
        .execute();
      assert.equal((await read(erpHook)).disabled_reason, 'the application that created it was revoked');
    },
  );

  await t.test('enabling an endpoint again makes the credential that enables it its creator', async () => {
    const rescuer = await key('rescuer', [restaurant]);
    const enabled = await api(rescuer.authorization, 'POST', `/v1/webhook-endpoints/${goneHook}/enable`);
    assert.equal(enabled.statusCode, 200, enabled.body);
    assert.equal(enabled.json().status, 'enabled');
    assert.deepEqual(await creator(goneHook), { api_key_id: rescuer.id, oauth_client_id: null });
    const from = receiver.received.length;
    await edit('Margherita Resgatada');
    await worker.runOnce();
    assert.ok(pathsFrom(from).includes('/revoked'), 'it gets events again');
    await revokeKey(db, restaurant, rescuer.id);
    assert.equal((await read(goneHook)).status, 'disabled', 'it follows its new creator');
    // Enabled from a restaurant session (the console), it is the restaurant's: no key takes it away.
    assert.equal((await api(staff, 'POST', `/v1/webhook-endpoints/${goneHook}/enable`)).statusCode, 200);
    assert.deepEqual(await creator(goneHook), { api_key_id: null, oauth_client_id: null });
    await revokeKey(db, restaurant, keep.id);
    assert.equal((await read(goneHook)).status, 'enabled');
    assert.equal((await read(keptHook)).status, 'disabled');
  });

  await t.test('enabling an endpoint needs the read scope of each of its event types', async () => {
    const finance = await key('finance', [restaurant], ['webhooks:write', 'financial:read']);
    const hook = await endpoint(finance.authorization, '/finance', restaurant, ['cash_flows.updated']);
    await revokeKey(db, restaurant, finance.id);
    const narrow = await key('narrow', [restaurant], ['webhooks:write', 'products:read']);
    const refused = await api(narrow.authorization, 'POST', `/v1/webhook-endpoints/${hook}/enable`);
    assert.equal(refused.statusCode, 403);
    assert.match(refused.json().message, /financial:read/);
    assert.equal((await read(hook)).status, 'disabled');
  });

  await t.test(
    'a delivery handed out while its endpoint was disabled is not sent, and fails when it is enabled again',
    async () => {
      // A fan-out that read the endpoint before the revocation committed writes its deliveries after.
      await sql`insert into webhook_deliveries (endpoint_id, event_id, event_type, payload)
        values (${keptHook}, 'evt_late', 'product.updated', '{}')`.execute(db);
      const from = receiver.received.length;
      await worker.runOnce();
      assert.ok(!pathsFrom(from).includes('/kept'));
      assert.equal((await api(staff, 'POST', `/v1/webhook-endpoints/${keptHook}/enable`)).statusCode, 200);
      await worker.runOnce();
      assert.ok(!pathsFrom(from).includes('/kept'));
      const { rows } = await sql<{ status: string }>`select status from webhook_deliveries
        where event_id = 'evt_late'`.execute(db);
      assert.equal(rows[0].status, 'failed');
    },
  );

  await t.test(
    'an API key that expires stops its endpoints: nothing more is delivered to them, and the worker disables them',
    async () => {
      const expiring = await key('expiring', [restaurant]);
      const lasting = await key('lasting', [restaurant]);
      const expiringHook = await endpoint(expiring.authorization, '/expiring');
      const lastingHook = await endpoint(lasting.authorization, '/lasting');
      const deliveries = async (id: number) =>
        (
          await sql<{ status: string }>`select status from webhook_deliveries where endpoint_id = ${id}
            order by id`.execute(db)
        ).rows.map((r) => r.status);
      assert.equal((await edit('Margherita Antes de Expirar')).statusCode, 200);
      assert.equal(await fanOut(db), 1);
      assert.deepEqual(await deliveries(expiringHook), ['pending'], 'handed out before the expiry');
      // Nothing writes when a key expires: its expires_at passes.
      await sql`update api_keys set expires_at = now() - interval '1 second' where id = ${expiring.id}`.execute(
        db,
      );
      // Lease 0: what is claimed here is due again at once, for the worker below.
      const claimed = await claimDue(db, 100, 0);
      assert.ok(claimed.some((d) => d.endpoint_id === lastingHook));
      assert.ok(!claimed.some((d) => d.endpoint_id === expiringHook), 'its pending delivery is not claimed');
      assert.equal((await edit('Margherita Expirada')).statusCode, 200);
      assert.equal(await fanOut(db), 1);
      assert.deepEqual(await deliveries(expiringHook), ['pending'], 'the later event is not handed to it');
      assert.deepEqual(await deliveries(lastingHook), ['pending', 'pending']);
      const from = receiver.received.length;
      await worker.runOnce();
      assert.ok(pathsFrom(from).includes('/lasting'));
      assert.ok(!pathsFrom(from).includes('/expiring'));
      const expired = await read(expiringHook);
      assert.equal(expired.status, 'disabled');
      assert.equal(expired.disabled_reason, 'the API key that created it expired');
      assert.deepEqual(await deliveries(expiringHook), ['failed'], 'its pending delivery fails with it');
      assert.equal((await read(lastingHook)).status, 'enabled');
      assert.deepEqual(await deliveries(lastingHook), ['succeeded', 'succeeded']);
    },
  );
});

test('on PostgreSQL, an endpoint made while its key is revoked is disabled or refused, whichever commits first', {
  skip: !testDatabaseUrl && 'needs PostgreSQL (DATABASE_URL)',
}, async (t) => {
  const world = await eventsWorld(t, { webhookAllowPrivate: true });
  const { db, restaurant } = world;
  const race = await raceConnection(t, world);

  await t.test('a creation that holds the restaurant first is disabled by the revocation', async () => {
    const { apiKeyId } = await bearerFor(db, [restaurant], ALL_SCOPES);
    const { result, reason } = await race.createdFirst(apiKeyId, () => revokeApiKey(db, apiKeyId), 'commit%');
    assert.equal(result, true);
    assert.equal(reason, 'the API key that created it was revoked');
  });

  await t.test('a creation that waits for the revocation is refused', async () => {
    const { authorization, apiKeyId } = await bearerFor(db, [restaurant], ALL_SCOPES);
    const revoke = 'update api_keys set revoked_at = now() where id = $1';
    const { res, written } = await race.createdAfter(apiKeyId, authorization, [revoke, [apiKeyId]]);
    assert.equal(res.statusCode, 401, res.body);
    assert.equal(res.json().key, 'invalid_token');
    assert.equal(written, false);
  });
});
