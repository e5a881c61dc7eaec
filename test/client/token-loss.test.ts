// The token manager when a token answer is lost, refused or rate limited: against the real token
// endpoint behind a proxy that drops, holds or replaces its answer after the server committed it.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { test } from 'node:test';
import { ComandaClient, ComandaError, TokenManager, type TokenSet } from '../../src/client/index.ts';
import { hashSecret } from '../../src/lib/secrets.ts';
import { apiKeyFor, json, listeningApp, listenOn, type Script, scriptedServer } from './support.ts';

/** What the proxy does with a token request: forward it, or fail it before or after the server ran it. */
type Fault = 'pass' | 'refuse' | 'drop' | 'hold' | 'bad_gateway';

/** A proxy to `target` that applies, per grant type, the next queued fault (then passes). */
async function faultyProxy(t: Parameters<typeof listeningApp>[0], target: string) {
  const faults: Record<string, Fault[]> = {};
  const grants: (string | null)[] = [];
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', async () => {
      const grant = request.url === '/oauth/token' ? new URLSearchParams(body).get('grant_type') : null;
      if (grant) grants.push(grant);
      const fault = (grant && faults[grant]?.shift()) || 'pass';
      if (fault === 'refuse') return request.socket.destroy();
      const answer = await fetch(`${target}${request.url}`, {
        method: request.method,
        headers: Object.fromEntries(
          ['content-type', 'accept', 'authorization']
            .filter((name) => request.headers[name] !== undefined)
            .map((name) => [name, String(request.headers[name])]),
        ),
        body: request.method === 'GET' ? undefined : body,
      });
      const text = await answer.text(); // the server has committed whatever it did
      if (fault === 'drop') return request.socket.destroy();
      if (fault === 'hold') return;
      if (fault === 'bad_gateway') return json(response, 502, { error: 'bad_gateway' });
      response
        .writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'text/plain' })
        .end(text);
    });
  });
  return { baseUrl: await listenOn(t, server), faults, grants };
}

test('token answers lost after the server committed them', async (t) => {
  const { ctx, baseUrl } = await listeningApp(t);
  const db = ctx.db;
  const restaurant = (
    await db.insertInto('restaurants').values({ name: 'Bella' }).returning('id').executeTakeFirstOrThrow()
  ).id;

  /** A manager through a faulty proxy, on a clock the test moves, persisting like the README. */
  async function manager(options: { apiKey?: string; refreshToken?: string; direct?: boolean } = {}) {
    const apiKey = options.apiKey ?? (await apiKeyFor(db, [restaurant]));
    const proxy = await faultyProxy(t, baseUrl);
    const clock = { now: Date.now() };
    const store: { refreshToken?: string } = { refreshToken: options.refreshToken };
    const issued: TokenSet[] = [];
    const tokens = new TokenManager({
      baseUrl: options.direct ? baseUrl : proxy.baseUrl,
      apiKey,
      refreshToken: options.refreshToken,
      // Ends the held answer's wait; long enough that a loaded machine's real answer is never
      // taken for a lost one (the grants each test expects would change).
      timeoutMs: 5_000,
      now: () => clock.now,
      onTokens: (set) => {
        issued.push(set);
        store.refreshToken = set.refreshToken;
      },
      onRefreshTokenDropped: () => {
        store.refreshToken = undefined;
      },
    });
    const client = new ComandaClient({ baseUrl, tokens });
    return { apiKey, proxy, clock, store, issued, tokens, client };
  }

  const familyOf = async (refreshToken: string) => {
    return db
      .selectFrom('refresh_tokens as r')
      .innerJoin('refresh_token_families as f', 'f.id', 'r.family_id')
      .select(['r.consumed_at', 'f.revoked_at'])
      .where('r.token_hash', '=', hashSecret(refreshToken))
      .executeTakeFirstOrThrow();
  };

  for (const fault of ['drop', 'hold', 'bad_gateway'] as const) {
    await t.test(
      `a refresh the server committed but answered with ${fault} is never sent again: 20 waiting calls get one new family from the API key`,
      async () => {
        const m = await manager();
        await m.tokens.getAccessToken();
        const consumed = m.issued[0].refreshToken!;
        m.proxy.faults.refresh_token = [fault];
        m.clock.now = m.issued[0].expiresAt; // expired: nothing to fall back on
        const tokens = await Promise.all(Array.from({ length: 20 }, () => m.tokens.getAccessToken()));
        assert.equal(new Set(tokens).size, 1);
        assert.deepEqual(m.proxy.grants, ['api_key', 'refresh_token', 'api_key']);
        const old = await familyOf(consumed);
        assert.ok(old.consumed_at, 'the server rotated the token whose answer was lost');
        assert.equal(old.revoked_at, null, 'no reuse: the family was not revoked');
        assert.notEqual(m.store.refreshToken, consumed);
        assert.ok(await m.client.listProducts(), 'the new access token works');
      },
    );
  }

  await t.test(
    'after a lost refresh and a failed exchange the consumed refresh token is dropped from the store: a restart exchanges the API key and revokes nothing',
    async () => {
      const m = await manager();
      const other = await manager({ apiKey: m.apiKey, direct: true }); // another process, same key
      await other.client.listProducts();
      await m.tokens.getAccessToken();
      const consumed = m.issued[0].refreshToken!;
      m.proxy.faults.refresh_token = ['drop'];
      m.proxy.faults.api_key = ['refuse', 'refuse', 'refuse', 'refuse'];
      m.clock.now = m.issued[0].expiresAt;
      const failed = await m.tokens.getAccessToken().then(
        () => assert.fail('an expired access token was served after a failed exchange'),
        (error: unknown) => error as ComandaError,
      );
      assert.ok(failed instanceof ComandaError);
      assert.match(failed.message, /refresh token was dropped/);
      assert.match(failed.message, /API key/);
      assert.equal((await familyOf(consumed)).revoked_at, null);
      assert.equal(m.store.refreshToken, undefined, 'the store no longer holds the consumed token');
      // A restart from the store:
      const restarted = await manager({ apiKey: m.apiKey, refreshToken: m.store.refreshToken, direct: true });
      assert.ok(await restarted.client.listProducts());
      assert.equal((await familyOf(consumed)).revoked_at, null, 'no reuse detection');
      assert.ok(await other.client.listProducts(), "the other process's token was not revoked");
      // And the failed manager itself: no refresh token is ever sent again, the key starts a family.
      assert.ok(await m.tokens.getAccessToken());
      assert.deepEqual(m.proxy.grants.slice(-1), ['api_key']);
      assert.equal(m.proxy.grants.filter((g) => g === 'refresh_token').length, 1);
    },
  );

  await t.test(
    'a 400 invalid_grant on refresh stops the manager with a clear error until reset()',
    async () => {
      const m = await manager();
      await m.tokens.getAccessToken();
      await db.updateTable('refresh_token_families').set({ revoked_at: new Date() }).execute();
      m.clock.now = m.issued[0].expiresAt - 30_000;
      const refused = await m.tokens.getAccessToken().catch((error: ComandaError) => error);
      assert.ok(refused instanceof ComandaError);
      assert.deepEqual([refused.status, refused.key], [400, 'invalid_grant']);
      assert.match(refused.message, /reset\(\)/);
      await assert.rejects(m.tokens.getAccessToken(), { key: 'invalid_grant' });
      assert.deepEqual(m.proxy.grants, ['api_key', 'refresh_token']);
    },
  );
});

const issued =
  (n: number, expiresIn = 900): Script =>
  (_q, res) =>
    json(res, 200, {
      access_token: `cat_a${n}`,
      token_type: 'Bearer',
      expires_in: expiresIn,
      refresh_token: `crt_r${n}`,
      scope: 'x',
    });

const limited =
  (seconds: number): Script =>
  (_q, res) =>
    json(
      res,
      429,
      { error: 'rate_limited', error_description: 'Too many.' },
      { 'retry-after': String(seconds) },
    );

test('a 429 on refresh while the access token is still valid: calls keep it and the refresh waits for Retry-After', async (t) => {
  const server = await scriptedServer(t, { '/oauth/token': [issued(1), limited(2), issued(2)] });
  const clock = { offset: 0 };
  const tokens = new TokenManager({
    baseUrl: server.baseUrl,
    apiKey: 'ck_test_key',
    now: () => Date.now() + clock.offset,
  });
  assert.equal(await tokens.getAccessToken(), 'cat_a1');
  clock.offset = 900_000 - 30_000; // due for a refresh, 30 s left
  const started = Date.now();
  assert.equal(await tokens.getAccessToken(), 'cat_a1');
  // Waiting for Retry-After would take 2 s: 1.5 s leaves a loaded machine room for the 429 itself.
  assert.ok(Date.now() - started < 1500, `the call waited ${Date.now() - started} ms for Retry-After`);
  assert.equal(await tokens.getAccessToken(), 'cat_a1');
  assert.equal(server.received.length, 2, 'no refresh before Retry-After');
  await new Promise((resolve) => setTimeout(resolve, 2100));
  assert.equal(await tokens.getAccessToken(), 'cat_a2');
  const sent = server.received.map((r) => new URLSearchParams(r.body).get('refresh_token'));
  assert.deepEqual(sent, [null, 'crt_r1', 'crt_r1'], 'the rate-limited token, unconsumed, is sent again');
});

test('a 429 on refresh of an expired token waits Retry-After in the call (nothing else to use)', async (t) => {
  const server = await scriptedServer(t, { '/oauth/token': [issued(1), limited(1), issued(2)] });
  const clock = { offset: 0 };
  const tokens = new TokenManager({
    baseUrl: server.baseUrl,
    apiKey: 'ck_test_key',
    now: () => Date.now() + clock.offset,
  });
  await tokens.getAccessToken();
  clock.offset = 900_000;
  assert.equal(await tokens.getAccessToken(), 'cat_a2');
  assert.equal(server.received.length, 3);
});
