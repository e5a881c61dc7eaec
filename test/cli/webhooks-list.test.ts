import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import { COMMANDS } from '../../src/admin/commands.ts';
import type { Principal } from '../../src/http/principal.ts';
import { recordEvents } from '../../src/modules/events/outbox.ts';
import { createEndpoint } from '../../src/modules/webhooks/endpoint-service.ts';
import { cliEnv, commandWorld, runCli, seededDataDir } from './cli-process.ts';

test('comanda webhooks list', async (t) => {
  const { database, config, ctx } = await commandWorld(t);
  const session: Principal = { kind: 'restaurant_session', sessionId: 's', restaurantIds: [1], scopes: [] };
  const keys = { secretKey: config.fiscalTokenKey!, allowPrivate: true };
  const endpoint = await createEndpoint(
    database.db,
    1,
    session,
    { url: 'https://pos.example/hook', events: ['product.updated'] },
    keys,
  );
  await recordEvents(database.db, [{ restaurant_id: 1, type: 'product.updated', data: {} }]);

  await t.test('lists each endpoint with its restaurant, state and queue, never its secret', async () => {
    const { webhook_endpoints } = (await COMMANDS['webhooks list'](ctx, {})) as any;
    assert.equal(webhook_endpoints.length, 1);
    assert.equal(webhook_endpoints[0].id, endpoint.id);
    assert.equal(webhook_endpoints[0].restaurant_id, 1);
    assert.equal(webhook_endpoints[0].pending_deliveries, 1);
    assert.ok(!JSON.stringify(webhook_endpoints).includes('whsec_'));
    await sql`update webhook_endpoints set disabled_at = now(), disabled_reason = 'every delivery failed for 3 days'`.execute(
      database.db,
    );
    const [disabled] = ((await COMMANDS['webhooks list'](ctx, {})) as any).webhook_endpoints;
    assert.equal(disabled.status, 'disabled');
  });

  await t.test('--restaurant keeps one restaurant', async () => {
    const { webhook_endpoints } = (await COMMANDS['webhooks list'](ctx, { restaurant_id: '2' })) as any;
    assert.deepEqual(webhook_endpoints, []);
  });

  await t.test('the command runs from the command line', async () => {
    const env = cliEnv(await seededDataDir(t));
    const result = await runCli(['webhooks', 'list'], env);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout, 'no webhook endpoints\n');
  });
});
