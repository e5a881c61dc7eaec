import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import { storeOAuthClient } from '../../../src/modules/auth/oauth-clients.ts';
import { recordConsent } from '../../../src/modules/console/apps-repository.ts';
import { removeApp } from '../../../src/modules/console/apps-service.ts';
import { load, world } from '../../import/world.ts';
import { buildTestApp } from '../../support/app.ts';
import { addStaff } from '../console/support.ts';

type Stored = { restaurant_id: number; type: string; data: Record<string, any> };

test('events of imports and application installs', async (t) => {
  const { ctx } = await buildTestApp(t);
  const { db } = ctx;
  const events = async (type: string) =>
    (
      await sql<Stored>`select restaurant_id, type, data from events where type = ${type} order by seq`.execute(
        db,
      )
    ).rows;

  await t.test(
    'an import emits nfe_received.created per new note, cash_flows.updated and menu.updated per restaurant',
    async () => {
      await load(db, world());
      const notes = await events('nfe_received.created');
      assert.equal(notes.length, 1);
      assert.equal(notes[0].restaurant_id, 1);
      assert.equal(notes[0].data.nfe_received_id, 7000);
      assert.equal(notes[0].data.access_key, '35260112345678000199550010000012341000012345');
      const cash = await events('cash_flows.updated');
      assert.deepEqual(
        cash.map((e) => e.restaurant_id),
        [...new Set(world().cash_flows.map((c) => c.restaurant_id))],
      );
      assert.ok(cash[0].data.cash_flow_ids.includes(5000));
      const menus = await events('menu.updated');
      assert.deepEqual(menus.map((e) => e.restaurant_id).sort(), [1, 2]);
      assert.deepEqual(menus[0].data.channels, ['in_store', 'delivery']);
    },
  );

  await t.test('importing the same notes again creates no nfe_received.created', async () => {
    await load(db, world());
    assert.equal((await events('nfe_received.created')).length, 1);
  });

  await t.test(
    'cash_flows.updated names only the main entries an import adds or changes, items included, and none for the same file again',
    async () => {
      let before = (await events('cash_flows.updated')).length;
      await load(db, world());
      assert.equal(
        (await events('cash_flows.updated')).length,
        before,
        'the same entries again change nothing',
      );

      // An item changed, then an item dropped: each time its main entry, and no other.
      const file = world();
      const [invoice, ...rest] = file.cash_flows;
      const items: { id: number }[] = invoice.items;
      for (const entry of [
        {
          ...invoice,
          items: items.map((i) => (i.id === 5002 ? { ...i, description: 'Tomate italiano' } : i)),
        },
        { ...invoice, value: '200.00', items: items.filter((i) => i.id !== 5002) },
      ]) {
        await load(db, { ...file, cash_flows: [entry, ...rest] });
        const after = await events('cash_flows.updated');
        assert.equal(after.length, before + 1);
        assert.equal(after.at(-1)?.restaurant_id, 1);
        assert.deepEqual(after.at(-1)?.data.cash_flow_ids, [5000]);
        before = after.length;
      }
    },
  );

  await t.test('an item moved to another main entry names both in cash_flows.updated', async () => {
    // A zero-valued item: neither main entry's value changes with the move, only its items.
    const file = world();
    const [invoice, ...rest] = file.cash_flows;
    const zero = { id: 5009, description: 'Brinde', value: '0.00', category_subcategory_id: 80 };
    const other = {
      ...invoice,
      id: 5010,
      value: '50.00',
      items: [{ id: 5011, description: 'Queijo', value: '50.00', category_subcategory_id: 80 }],
    };
    await load(db, {
      ...file,
      cash_flows: [{ ...invoice, items: [...invoice.items, zero] }, other, ...rest],
    });
    const before = (await events('cash_flows.updated')).length;
    await load(db, { ...file, cash_flows: [invoice, { ...other, items: [...other.items, zero] }, ...rest] });
    const after = await events('cash_flows.updated');
    assert.equal(after.length, before + 1);
    assert.deepEqual([...after.at(-1)!.data.cash_flow_ids].sort(), [5000, 5010]);
  });

  let appId = 0;
  await t.test('a first consent emits app.installed with the scopes; a later one does not', async () => {
    const app = await storeOAuthClient(db, {
      clientId: 'pos-pkce',
      clientSecret: null,
      name: 'Balcão POS',
      scopes: ['menu:read'],
      grantTypes: ['authorization_code'],
      redirectUris: ['https://pos.example/cb'],
      restaurantIds: [],
    });
    const staff = await addStaff(db, 'ana@example.com', [1]);
    const consent = { oauthClientId: app.id, restaurantId: 1, scopes: ['menu:read'], staffUserId: staff.id };
    await db.transaction().execute((tx) => recordConsent(tx, { ...consent }, new Date()));
    const installed = await events('app.installed');
    assert.equal(installed.length, 1);
    assert.deepEqual(installed[0].data, { client_id: 'pos-pkce', name: 'Balcão POS', scopes: ['menu:read'] });
    await db.transaction().execute((tx) => recordConsent(tx, { ...consent }, new Date()));
    assert.equal((await events('app.installed')).length, 1);
    appId = app.id;
  });

  await t.test('removing the installation emits app.revoked once', async () => {
    assert.equal(await removeApp(db, appId, 1), true);
    assert.equal(await removeApp(db, appId, 1), false);
    const revoked = await events('app.revoked');
    assert.deepEqual(
      revoked.map((e) => [e.restaurant_id, e.data.client_id]),
      [[1, 'pos-pkce']],
    );
  });
});
