import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import { COMMANDS } from '../../../src/admin/commands.ts';
import { EVENT_SCOPES } from '../../../src/modules/events/event-types.ts';
import * as repository from '../../../src/modules/webhooks/endpoint-repository.ts';
import { fanOut } from '../../../src/modules/webhooks/fanout.ts';
import { testDatabaseUrl } from '../../support/database.ts';
import {
  appWithToken,
  eventsWorld,
  keyWithToken,
  raceConnection,
  worldWorker,
} from '../../support/events-world.ts';
import { startReceiver } from '../../support/receiver.ts';
import { sessionFor } from '../../support/tokens.ts';

const WITH_PRODUCTS = ['webhooks:write', 'webhooks:read', 'products:read', 'financial:read'];
const WITHOUT_PRODUCTS = ['webhooks:write', 'webhooks:read', 'financial:read'];

test('the endpoints of a credential that loses a read scope are disabled', async (t) => {
  const world = await eventsWorld(t, { webhookAllowPrivate: true });
  const { app, db, ctx, restaurant, products } = world;
  const receiver = await startReceiver(t);
  const worker = worldWorker(t, world, { timeoutMs: 500 });

  const key = (name: string, scopes: string[]) => keyWithToken(db, name, [restaurant], scopes);
  /** Defines the key again by import, as an integrator's migration does. */
  const importKey = (k: { id: number; key: string }, scopes: string[]) =>
    COMMANDS.import(ctx, {
      data: { api_keys: [{ id: k.id, key: k.key, restaurant_ids: [restaurant], scopes }] },
    });
  const staff = sessionFor(restaurant, ctx.secrets.sessionSecret).authorization;
  const create = (authorization: string, path: string, events: string[]) =>
    app.inject({
      method: 'POST',
      url: `/v1/webhook-endpoints?restaurant_id=${restaurant}`,
      headers: { authorization },
      payload: { url: receiver.url(path), events },
    });
  async function endpoint(authorization: string, path: string, events: string[]) {
    const res = await create(authorization, path, events);
    assert.equal(res.statusCode, 201, res.body);
    return res.json().id as number;
  }
  const enable = (authorization: string, id: number) =>
    app.inject({
      method: 'POST',
      url: `/v1/webhook-endpoints/${id}/enable?restaurant_id=${restaurant}`,
      headers: { authorization },
    });
  const read = async (id: number) =>
    (
      await app.inject({
        method: 'GET',
        url: `/v1/webhook-endpoints/${id}?restaurant_id=${restaurant}`,
        headers: { authorization: staff },
      })
    ).json();
  const deliveries = async (id: number) =>
    (
      await sql<{ status: string }>`select status from webhook_deliveries where endpoint_id = ${id}
        order by id`.execute(db)
    ).rows.map((r) => r.status);
  const edit = (name: string) =>
    app.inject({
      method: 'PUT',
      url: `/v1/products/${products[0]}`,
      headers: { authorization: staff },
      payload: { name },
    });

  await t.test(
    'the database holds the scopes of each event type as event-types.ts defines them',
    async () => {
      const { rows } = await sql<{ type: string; scopes: string[] }>`select type,
      array_agg(scope order by position) as scopes from event_type_scopes group by type`.execute(db);
      assert.deepEqual(
        Object.fromEntries(rows.map((r) => [r.type, r.scopes])),
        Object.fromEntries(Object.entries(EVENT_SCOPES).map(([type, scopes]) => [type, [...scopes]])),
      );
    },
  );

  await t.test(
    'a key that loses products:read by import has its product endpoints disabled with the reason, and keeps those of types it still reads',
    async () => {
      const pos = await key('pos', WITH_PRODUCTS);
      const productHook = await endpoint(pos.authorization, '/products', ['product.updated']);
      const bothHook = await endpoint(pos.authorization, '/both', ['cash_flows.updated', 'product.updated']);
      const financeHook = await endpoint(pos.authorization, '/finance', ['cash_flows.updated']);
      assert.equal((await edit('Margherita Antes')).statusCode, 200);
      assert.equal(await fanOut(db), 1);
      assert.deepEqual(await deliveries(productHook), ['pending'], 'handed out before the import');

      await importKey(pos, WITHOUT_PRODUCTS);
      const reason = 'the API key that created it no longer has the scope products:read';
      for (const id of [productHook, bothHook]) {
        const disabled = await read(id);
        assert.equal(disabled.status, 'disabled');
        assert.equal(disabled.disabled_reason, reason);
      }
      assert.equal((await read(financeHook)).status, 'enabled');
      assert.deepEqual(await deliveries(productHook), ['failed'], 'its pending delivery fails with it');
      const from = receiver.received.length;
      assert.equal((await edit('Margherita Depois')).statusCode, 200);
      await worker.runOnce();
      assert.deepEqual(
        receiver.received.slice(from).map((r) => r.path),
        [],
        'no product event reaches a disabled endpoint',
      );
    },
  );

  await t.test(
    'an application that loses products:read by import has its product endpoints disabled',
    async () => {
      const scopes = ['webhooks:write', 'products:read', 'nfe-received:read'];
      const erp = await appWithToken(db, 'erp', [restaurant], scopes);
      const productHook = await endpoint(erp.authorization, '/erp-products', ['product.updated']);
      const nfeHook = await endpoint(erp.authorization, '/erp-nfe', ['nfe_received.created']);
      const importClient = (clientScopes: string[]) =>
        COMMANDS.import(ctx, {
          data: {
            oauth_clients: [
              {
                client_id: 'erp',
                client_secret: 'erp-secret',
                name: 'ERP',
                restaurant_ids: [restaurant],
                scopes: clientScopes,
                grant_types: ['client_credentials'],
              },
            ],
          },
        });
      await importClient(['nfe-received:read', 'webhooks:write', 'products:read']);
      assert.equal((await read(productHook)).status, 'enabled', 'defined again with the same scopes');
      await importClient(['webhooks:write', 'nfe-received:read']);
      const disabled = await read(productHook);
      assert.equal(disabled.status, 'disabled');
      assert.equal(
        disabled.disabled_reason,
        'the application that created it no longer has the scope products:read',
      );
      assert.equal((await read(nfeHook)).status, 'enabled');
    },
  );

  await t.test('a change that keeps the scopes an endpoint needs does not disable it', async () => {
    const kept = await key('kept', WITH_PRODUCTS);
    const hook = await endpoint(kept.authorization, '/kept', ['product.updated']);
    await importKey(kept, [...WITH_PRODUCTS].reverse());
    await importKey(kept, [...WITH_PRODUCTS, 'nfe-received:read']);
    assert.equal((await read(hook)).status, 'enabled', 'the same scopes, reordered or with more');
    await importKey(kept, [...WITHOUT_PRODUCTS, 'menu:read']);
    assert.equal((await read(hook)).status, 'enabled', 'menu:read still reads product.updated');
    await db.transaction().execute(async (trx) => {
      await trx.updateTable('api_keys').set({ scopes: WITHOUT_PRODUCTS }).where('id', '=', kept.id).execute();
      await trx
        .updateTable('api_keys')
        .set({ scopes: [...WITHOUT_PRODUCTS, 'products:read'] })
        .where('id', '=', kept.id)
        .execute();
    });
    assert.equal(
      (await read(hook)).status,
      'enabled',
      'a scope taken away and given back in one transaction',
    );
    await importKey(kept, WITHOUT_PRODUCTS);
    assert.equal(
      (await read(hook)).disabled_reason,
      'the API key that created it no longer has the scope products:read',
    );
  });

  await t.test(
    'whatever writes the scopes, and a token issued before cannot create or enable an endpoint of a type its key no longer reads',
    async () => {
      const direct = await key('direct', [...WITH_PRODUCTS, 'menu:read']);
      const hook = await endpoint(direct.authorization, '/direct', ['menu.updated']);
      // Plain SQL ends none of the key's tokens, as the importer would.
      await sql`update api_keys set scopes = ${WITHOUT_PRODUCTS} where id = ${direct.id}`.execute(db);
      assert.equal(
        (await read(hook)).disabled_reason,
        'the API key that created it no longer has the scopes products:read and menu:read',
      );
      const created = await create(direct.authorization, '/direct-again', ['product.updated']);
      assert.equal(created.statusCode, 401, created.body);
      const enabled = await enable(direct.authorization, hook);
      assert.equal(enabled.statusCode, 401, enabled.body);
      assert.equal((await read(hook)).status, 'disabled');
      assert.equal(
        (await create(direct.authorization, '/direct-finance', ['cash_flows.updated'])).statusCode,
        201,
        'a type it still reads',
      );
    },
  );

  await t.test('an expired API key can neither create nor enable an endpoint', async () => {
    const expiring = await key('expiring', WITH_PRODUCTS);
    const hook = await endpoint(expiring.authorization, '/expiring', ['product.updated']);
    await sql`update webhook_endpoints set disabled_at = now(), disabled_reason = 'test' where id = ${hook}`.execute(
      db,
    );
    const { id: tokenId } = await db
      .selectFrom('access_tokens')
      .select('id')
      .where('api_key_id', '=', expiring.id)
      .executeTakeFirstOrThrow();
    await sql`update api_keys set expires_at = now() - interval '1 second' where id = ${expiring.id}`.execute(
      db,
    );
    // Past the token check of the request (a key that expires between it and the write).
    const creator = { apiKeyId: expiring.id, oauthClientId: null, tokenId: String(tokenId) };
    const values = {
      url: receiver.url('/late'),
      events: ['product.updated'],
      description: '',
      secret_encrypted: 'x',
    };
    assert.equal(await repository.insertEndpoint(db, restaurant, values, 16, creator), 'lost');
    assert.equal(await repository.enableEndpoint(db, restaurant, hook, creator), 'lost');
    assert.equal((await read(hook)).status, 'disabled');
    // Through the API, its token is refused first.
    assert.equal((await create(expiring.authorization, '/late', ['product.updated'])).statusCode, 401);
    assert.equal((await enable(expiring.authorization, hook)).statusCode, 401);
  });
});

test('on PostgreSQL, an endpoint made while its key loses a scope is disabled or refused, whichever commits first', {
  skip: !testDatabaseUrl && 'needs PostgreSQL (DATABASE_URL)',
}, async (t) => {
  const world = await eventsWorld(t, { webhookAllowPrivate: true });
  const { db, restaurant } = world;
  const race = await raceConnection(t, world);
  const key = async () => {
    const { id, authorization } = await keyWithToken(db, 'racing', [restaurant], WITH_PRODUCTS);
    return { apiKeyId: id, authorization };
  };

  await t.test('a creation that holds the restaurant first is disabled by the loss of scope', async () => {
    const { apiKeyId } = await key();
    const narrow = () =>
      sql`update api_keys set scopes = ${WITHOUT_PRODUCTS} where id = ${apiKeyId}`.execute(db);
    const { reason } = await race.createdFirst(apiKeyId, narrow, 'update api_keys%');
    assert.equal(reason, 'the API key that created it no longer has the scope products:read');
  });

  await t.test('a creation that waits for the loss of scope is refused', async () => {
    const { authorization, apiKeyId } = await key();
    const narrow = 'update api_keys set scopes = $1 where id = $2';
    const { res, written } = await race.createdAfter(apiKeyId, authorization, [
      narrow,
      [WITHOUT_PRODUCTS, apiKeyId],
    ]);
    assert.equal(res.statusCode, 401, res.body);
    assert.equal(written, false);
  });
});
