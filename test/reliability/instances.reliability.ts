// Two real server processes on one PostgreSQL database and one Redis: what one instance does,
// the other must honour at once (refresh-token reuse, rate limits, optimistic versions, the
// menu cache, key revocation).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { signSession } from '../../src/modules/auth/session-token.ts';
import { reliabilityWorld } from '../security/world.ts';
import {
  bearer,
  cli,
  exchangeKey,
  freshDatabase,
  http,
  importFile,
  refresh,
  SECRETS,
  startInstance,
  tempDir,
} from './harness.ts';
import { missingServices, SHARED_POSTGRES, SHARED_REDIS } from './services.ts';

const SKIP = await missingServices();
const LIMIT = 40;

test('several instances on one PostgreSQL and one Redis', { skip: SKIP, timeout: 240_000 }, async (t) => {
  const databaseUrl = await freshDatabase(t, SHARED_POSTGRES);
  const { ids, data, keys } = reliabilityWorld({ products: 20, keys: 4 });
  await importFile(t, databaseUrl, data);
  const env = {
    DATABASE_URL: databaseUrl,
    REDIS_URL: SHARED_REDIS,
    RATE_LIMIT_PER_MINUTE: String(LIMIT),
    TOKEN_RATE_LIMIT_PER_MINUTE: '100000',
    DATA_DIR: tempDir(t),
  };
  const instances = await Promise.all([startInstance(t, env), startInstance(t, env)]);
  const [a, b] = instances.map((i) => i.url);
  // Each session counts apart from the keys' limits: one per check keeps the checks independent.
  const session = () => signSession(ids.a.restaurant, 3600, SECRETS.RESTAURANT_SESSION_SECRET);
  const products = ids.a.products;

  await t.test(
    'of concurrent refreshes of one token across instances exactly one wins and the family dies',
    async () => {
      for (let round = 0; round < 3; round++) {
        const tokens = await exchangeKey(a, keys[0].key);
        const answers = await Promise.all(
          Array.from({ length: 10 }, (_, i) => refresh(i % 2 ? b : a, tokens.refresh_token)),
        );
        const winners = answers.filter((r) => r.status === 200);
        assert.equal(winners.length, 1, answers.map((r) => `${r.status} ${r.text}`).join('\n'));
        for (const loser of answers.filter((r) => r.status !== 200)) {
          assert.equal(loser.status, 400);
          assert.equal(loser.json.error, 'invalid_grant');
        }
        const successor = winners[0].json;
        assert.equal((await refresh(b, successor.refresh_token)).json.error, 'invalid_grant');
        for (const url of [a, b]) {
          for (const token of [successor.access_token, tokens.access_token]) {
            assert.equal((await http(`${url}/v1/products`, { headers: bearer(token) })).status, 401);
          }
        }
      }
    },
  );

  await t.test(
    `the rate limit is shared: ${LIMIT} requests a minute in all, whichever instance answers`,
    async () => {
      const { access_token } = await exchangeKey(b, keys[1].key);
      const answers = [];
      for (let i = 0; i < 6; i++) {
        const wave = Array.from({ length: 10 }, (_, j) =>
          http(`${j % 2 ? a : b}/v1/menu`, { headers: bearer(access_token) }),
        );
        answers.push(...(await Promise.all(wave)));
      }
      const served = answers.filter((r) => r.status === 200).length;
      const limited = answers.filter((r) => r.status === 429);
      t.diagnostic(`60 requests over 2 instances: ${served} served, ${limited.length} limited`);
      assert.equal(served, LIMIT);
      assert.equal(limited.length, 60 - LIMIT);
      for (const r of limited) {
        assert.equal(r.json.key, 'rate_limited');
        assert.ok(Number(r.headers.get('retry-after')) >= 1);
      }
    },
  );

  await t.test(
    'of two overlapping bulk edits on two instances one wins and the other is 409 with nothing written',
    async () => {
      for (let round = 0; round < 5; round++) {
        const auth = bearer(session());
        const before = await Promise.all(
          products.slice(0, 10).map((id) => http(`${a}/v1/products/${id}`, { headers: auth })),
        );
        const version = new Map(before.map((r) => [r.json.id, r.json]));
        const batch = (slice: number[], label: string) =>
          JSON.stringify(
            slice.map((id) => ({
              id,
              description: `${label}-${round}`,
              expected_updated_at: version.get(id).updated_at,
            })),
          );
        const [x, y] = await Promise.all([
          http(`${a}/v1/products/bulk`, {
            method: 'PUT',
            headers: auth,
            body: batch(products.slice(0, 6), 'x'),
          }),
          http(`${b}/v1/products/bulk`, {
            method: 'PUT',
            headers: auth,
            body: batch(products.slice(4, 10), 'y'),
          }),
        ]);
        assert.deepEqual([x.status, y.status].sort(), [200, 409], `${x.text}\n${y.text}`);
        const [winner, loser] = x.status === 200 ? ['x', products.slice(6, 10)] : ['y', products.slice(0, 4)];
        const conflict = x.status === 409 ? x : y;
        assert.equal(conflict.json.key, 'product_update_conflict');
        const after = await Promise.all(
          products.slice(0, 10).map((id) => http(`${b}/v1/products/${id}`, { headers: auth })),
        );
        for (const p of after.map((r) => r.json)) {
          if (loser.includes(p.id))
            assert.deepEqual(p, version.get(p.id), `the losing batch wrote product ${p.id}`);
          else assert.equal(p.description, `${winner}-${round}`);
        }
      }
    },
  );

  await t.test('a catalog write on one instance is in the very next menu read on the other', async () => {
    const auth = bearer(session());
    const target = products[12];
    const menuProduct = async (url: string) => {
      const menu = (await http(`${url}/v1/menu`, { headers: auth })).json;
      return menu.categories
        .flatMap((c: { products: unknown[] }) => c.products)
        .find((p: { id: number }) => p.id === target);
    };
    for (let round = 1; round <= 5; round++) {
      const [writer, reader] = round % 2 ? [a, b] : [b, a];
      await menuProduct(reader);
      const price = 20 + round + round / 100;
      const put = await http(`${writer}/v1/products/${target}`, {
        method: 'PUT',
        headers: auth,
        body: JSON.stringify({ price }),
      });
      assert.equal(put.status, 200, put.text);
      assert.equal((await menuProduct(reader)).pricing.price, price.toFixed(2));
      const available = round % 2 === 0;
      const patch = await http(`${reader}/v1/products/${target}/availability`, {
        method: 'PATCH',
        headers: auth,
        body: JSON.stringify({ available }),
      });
      assert.equal(patch.status, 200);
      assert.equal((await menuProduct(writer)).availability.available, available);
    }
  });

  await t.test('revoking a key with the CLI shuts it out of every instance at once', async () => {
    const tokens = await exchangeKey(a, keys[2].key);
    for (const url of [a, b])
      assert.equal((await http(`${url}/v1/menu`, { headers: bearer(tokens.access_token) })).status, 200);
    const revoked = await cli(['api-key', 'revoke', String(keys[2].id), '--json'], {
      DATABASE_URL: databaseUrl,
    });
    assert.equal(revoked.code, 0, revoked.stderr);
    const firstCalls = await Promise.all(
      [a, b].map((url) => http(`${url}/v1/menu`, { headers: bearer(tokens.access_token) })),
    );
    assert.deepEqual(
      firstCalls.map((r) => r.status),
      [401, 401],
    );
    assert.equal((await refresh(b, tokens.refresh_token)).json.error, 'invalid_grant');
    const again = await http(`${b}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `grant_type=api_key&api_key=${keys[2].key}`,
    });
    assert.equal(again.json.error, 'invalid_client');
  });

  await t.test('both instances are still up and ready', async () => {
    for (const instance of instances) {
      assert.equal(instance.child.exitCode, null);
      assert.equal((await http(`${instance.url}/readyz`)).status, 200);
    }
  });
});
