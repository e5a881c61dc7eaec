// The administrative commands as functions (the same ones the CLI and the admin channel run).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { COMMANDS, CommandError } from '../../src/admin/commands.ts';
import { ImportError } from '../../src/import/import.ts';
import { accessTokenLookup, issueAccessToken } from '../../src/modules/auth/access-tokens.ts';
import { verifySession } from '../../src/modules/auth/session-token.ts';
import { world } from '../import/world.ts';
import { commandWorld } from './cli-process.ts';

test('administrative commands', async (t) => {
  const { database, ctx } = await commandWorld(t);

  await t.test('api-key create stores a live key for existing restaurants and returns it once', async () => {
    const key = (await COMMANDS['api-key create'](ctx, {
      restaurant_ids: ['1', '2'],
      scopes: ['menu:read'],
      name: 'POS',
    })) as any;
    assert.deepEqual(Object.keys(key), ['id', 'api_key', 'restaurant_ids', 'scopes']);
    assert.match(key.api_key, /^ck_live_/);
    assert.deepEqual(key.restaurant_ids, [1, 2]);
    const test = (await COMMANDS['api-key create'](ctx, {
      restaurant_ids: [1],
      scopes: ['menu:read'],
      test: true,
    })) as any;
    assert.match(test.api_key, /^ck_test_/);
  });

  await t.test('api-key create refuses an unknown scope, a missing restaurant and a bad id', async () => {
    await assert.rejects(
      COMMANDS['api-key create'](ctx, { restaurant_ids: [1], scopes: ['menu:write'] }),
      (err: Error) => {
        return err instanceof CommandError && /--scope: unknown scope\(s\): menu:write/.test(err.message);
      },
    );
    await assert.rejects(COMMANDS['api-key create'](ctx, { restaurant_ids: [1, 9], scopes: ['menu:read'] }), {
      message: 'restaurant 9 does not exist',
    });
    await assert.rejects(
      COMMANDS['api-key create'](ctx, { restaurant_ids: ['x'], scopes: ['menu:read'] }),
      CommandError,
    );
  });

  await t.test(
    'an id written as hex, with an exponent or a fraction is refused, not read as another number',
    async () => {
      for (const id of ['0x1', '1e0', '1.0', '+1', ' ']) {
        await assert.rejects(
          COMMANDS['api-key create'](ctx, { restaurant_ids: [id], scopes: ['menu:read'] }),
          /--restaurant must be positive whole numbers/,
          id,
        );
        await assert.rejects(
          COMMANDS['session create'](ctx, { restaurant_id: id }),
          /--restaurant must be/,
          id,
        );
      }
      await assert.rejects(
        COMMANDS['session create'](ctx, { restaurant_id: 1, ttl: '1e3' }),
        /--ttl must be/,
      );
    },
  );

  await t.test('api-key list never shows a key or its hash', async () => {
    const { api_keys } = (await COMMANDS['api-key list'](ctx, {})) as { api_keys: Record<string, unknown>[] };
    assert.ok(api_keys.length >= 3);
    for (const key of api_keys) {
      assert.equal(key.key_hash, undefined);
      assert.equal(key.api_key, undefined);
      assert.match(String(key.prefix), /^ck_(live|test)_.{4}$/);
    }
  });

  await t.test('api-key revoke revokes the key and every access token issued for it at once', async () => {
    const key = (await COMMANDS['api-key create'](ctx, {
      restaurant_ids: [1],
      scopes: ['menu:read'],
    })) as any;
    const token = await issueAccessToken(
      database.db,
      { apiKeyId: key.id, restaurantIds: [1], scopes: ['menu:read'] },
      900,
    );
    const findToken = accessTokenLookup(database.db);
    assert.ok(await findToken(token, null));
    assert.deepEqual(await COMMANDS['api-key revoke'](ctx, { id: String(key.id) }), {
      id: key.id,
      revoked: true,
      already_revoked: false,
    });
    assert.equal(await findToken(token, null), null);
    const again = (await COMMANDS['api-key revoke'](ctx, { id: key.id })) as any;
    assert.equal(again.already_revoked, true);
    await assert.rejects(COMMANDS['api-key revoke'](ctx, { id: 999 }), {
      message: 'API key 999 does not exist',
    });
  });

  await t.test(
    'session create signs a session for one existing restaurant with the session secret',
    async () => {
      const result = (await COMMANDS['session create'](ctx, { restaurant_id: '2', ttl: '120' })) as any;
      const claims = verifySession(result.session_token, ctx.secrets.sessionSecret);
      assert.equal(claims?.restaurant_id, 2);
      assert.equal(claims!.exp - claims!.iat, 120);
      assert.equal(Date.parse(result.expires_at), claims!.exp * 1000);
      assert.equal(verifySession(result.session_token, 'another-secret-of-at-least-32-chars!'), null);
      await assert.rejects(COMMANDS['session create'](ctx, { restaurant_id: 7 }), {
        message: 'restaurant 7 does not exist',
      });
      await assert.rejects(COMMANDS['session create'](ctx, { restaurant_id: 1, ttl: '0' }), /--ttl must be/);
    },
  );

  await t.test(
    'import rejects a bad file with the importer problems and reports a database failure as nothing written',
    async () => {
      const bad = world();
      bad.products[0].price = -1;
      await assert.rejects(COMMANDS.import(ctx, { data: bad }), ImportError);
      const failing = {
        ...ctx,
        db: {
          ...database.db,
          isTransaction: false,
          transaction: () => {
            throw new Error('connection lost');
          },
        },
      } as any;
      await assert.rejects(COMMANDS.import(failing, { data: world() }), {
        message: 'import failed, nothing was written: connection lost',
      });
    },
  );

  await t.test('migrate reports nothing to apply on a migrated database', async () => {
    assert.deepEqual(await COMMANDS.migrate(ctx, {}), { applied: [] });
  });
});
