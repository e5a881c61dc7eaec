import assert from 'node:assert/strict';
import { test } from 'node:test';
import { inspect } from 'node:util';
import {
  type ClientLogEvent,
  ComandaClient,
  ComandaError,
  TokenManager,
  type TokenSet,
} from '../../src/client/index.ts';
import { apiKeyFor, listeningApp, recordingFetch, refreshesIn } from './support.ts';

const grantOf = (body: string | undefined) => new URLSearchParams(body).get('grant_type');

test('TokenManager against the real token endpoint', async (t) => {
  const { ctx, baseUrl } = await listeningApp(t);
  const db = ctx.db;
  const restaurant = (
    await db.insertInto('restaurants').values({ name: 'Bella' }).returning('id').executeTakeFirstOrThrow()
  ).id;

  /** A manager on a clock the test moves, recording requests, tokens and log events. */
  async function manager(options: { refreshToken?: string; apiKey?: string } = {}) {
    const apiKey = options.apiKey ?? (await apiKeyFor(db, [restaurant]));
    const clock = { now: Date.now() };
    const recorder = recordingFetch();
    const persisted: TokenSet[] = [];
    const events: ClientLogEvent[] = [];
    const tokens = new TokenManager({
      baseUrl,
      apiKey,
      refreshToken: options.refreshToken,
      fetch: recorder.fetch,
      now: () => clock.now,
      logger: (event) => events.push(event),
      onTokens: (set) => {
        persisted.push(set);
      },
    });
    const client = new ComandaClient({
      baseUrl,
      tokens,
      fetch: recorder.fetch,
      logger: (e) => events.push(e),
    });
    return { apiKey, clock, tokens, client, persisted, events, sent: recorder.sent };
  }

  await t.test(
    'the API key is exchanged once and the token reused until 60 s before it expires',
    async () => {
      const m = await manager();
      const first = await m.tokens.getAccessToken();
      assert.equal(await m.tokens.getAccessToken(), first);
      assert.deepEqual(
        m.sent.map((s) => grantOf(s.body)),
        ['api_key'],
      );
      const { expiresAt } = m.persisted[0];
      assert.ok(Math.abs(expiresAt - (m.clock.now + 900_000)) < 5_000, 'expiry from expires_in');
      m.clock.now = expiresAt - 61_000;
      assert.equal(await m.tokens.getAccessToken(), first);
      assert.equal(m.sent.length, 1);
      m.clock.now = expiresAt - 59_000;
      const second = await m.tokens.getAccessToken();
      assert.notEqual(second, first);
      assert.deepEqual(
        m.sent.map((s) => grantOf(s.body)),
        ['api_key', 'refresh_token'],
      );
      assert.equal(new URLSearchParams(m.sent[1].body).get('refresh_token'), m.persisted[0].refreshToken);
      assert.deepEqual([...new URLSearchParams(m.sent[1].body).keys()].sort(), [
        'grant_type',
        'refresh_token',
      ]);
    },
  );

  await t.test(
    '20 concurrent calls that need a refresh send exactly one refresh and all succeed',
    async () => {
      const m = await manager();
      await m.client.listProducts();
      m.clock.now = m.persisted[0].expiresAt - 30_000;
      const results = await Promise.all(Array.from({ length: 20 }, () => m.client.listProducts()));
      assert.equal(results.length, 20);
      assert.equal(refreshesIn(m.sent).length, 1);
      const data = m.sent.filter((s) => s.path.startsWith('/v1/'));
      assert.equal(new Set(data.slice(1).map((s) => s.authorization)).size, 1, 'all 20 use the new token');
      assert.equal(m.persisted.length, 2);
      const family = await db
        .selectFrom('refresh_tokens as r')
        .innerJoin('refresh_token_families as f', 'f.id', 'r.family_id')
        .select(['f.id', 'f.revoked_at', 'r.consumed_at'])
        .where(
          'f.api_key_id',
          '=',
          (await db.selectFrom('api_keys').select('id').orderBy('id', 'desc').executeTakeFirstOrThrow()).id,
        )
        .execute();
      assert.equal(family.length, 2, 'the first refresh token and its one successor');
      assert.equal(family[0].revoked_at, null, 'the family is intact');
    },
  );

  await t.test(
    'onTokens gets each rotated refresh token; a new process continues the family with it',
    async () => {
      const m = await manager();
      await m.tokens.getAccessToken();
      m.clock.now = m.persisted[0].expiresAt;
      await m.tokens.getAccessToken();
      assert.notEqual(m.persisted[1].refreshToken, m.persisted[0].refreshToken);
      const next = await manager({ apiKey: m.apiKey, refreshToken: m.persisted[1].refreshToken });
      await next.client.listProducts();
      assert.deepEqual(
        next.sent.filter((s) => s.path === '/oauth/token').map((s) => grantOf(s.body)),
        ['refresh_token'],
      );
    },
  );

  await t.test(
    'a reused refresh token gives a clear invalid_grant until reset(), without leaking tokens',
    async () => {
      const a = await manager();
      await a.tokens.getAccessToken();
      const shared = a.persisted[0].refreshToken!;
      const b = await manager({ apiKey: a.apiKey, refreshToken: shared });
      await b.tokens.getAccessToken(); // b consumes the shared token
      a.clock.now = a.persisted[0].expiresAt; // a sends it again: reuse, the family is revoked
      const refused = await a.tokens.getAccessToken().then(
        () => assert.fail('a reused refresh token was accepted'),
        (error: unknown) => error as ComandaError,
      );
      assert.ok(refused instanceof ComandaError);
      assert.equal(refused.status, 400);
      assert.equal(refused.key, 'invalid_grant');
      assert.match(refused.message, /already used.*revokes the whole token family.*reset\(\)/);
      assert.match(String(refused.errorId), /^[0-9a-f-]{36}$/);
      for (const secret of [shared, a.apiKey, ...b.persisted.map((p) => p.accessToken)]) {
        assert.ok(!refused.message.includes(secret) && !inspect(refused).includes(secret));
      }
      const sentBefore = a.sent.length;
      await assert.rejects(a.tokens.getAccessToken(), { key: 'invalid_grant' });
      assert.equal(a.sent.length, sentBefore, 'nothing more is sent until reset()');
      // The reuse revoked b's tokens too: its read is refused, then its own refresh.
      await assert.rejects(b.client.listProducts(), { key: 'invalid_grant' });
      a.tokens.reset();
      assert.ok(await a.tokens.getAccessToken());
      assert.equal(grantOf(a.sent.at(-1)!.body), 'api_key');
    },
  );

  await t.test('a wrong API key is a ComandaError invalid_client that does not repeat the key', async () => {
    const m = await manager({ apiKey: 'ck_test_not-a-real-key-000000000000000000000' });
    const error = await m.client.listProducts().catch((e: ComandaError) => e);
    assert.ok(error instanceof ComandaError);
    assert.deepEqual([error.status, error.key], [401, 'invalid_client']);
    assert.ok(!error.message.includes('not-a-real-key'));
    assert.ok(error.errorId);
  });

  await t.test('secrets appear in no log event, inspection or JSON of the manager and client', async () => {
    const m = await manager();
    await m.client.listProducts();
    m.clock.now = m.persisted[0].expiresAt;
    await m.client.listProducts();
    const secrets = [m.apiKey, ...m.persisted.flatMap((p) => [p.accessToken, p.refreshToken!])];
    const shown = [
      JSON.stringify(m.events),
      JSON.stringify(m.tokens),
      inspect(m.tokens),
      inspect(m.client, { depth: 5 }),
    ];
    for (const text of shown) for (const secret of secrets) assert.ok(!text.includes(secret), text);
    assert.deepEqual(
      m.events.map((e) => e.type === 'tokens' && e.grant),
      ['api_key', 'refresh_token'],
    );
  });
});

test('reset() during a refresh in flight: the late answer is not kept, and the next call exchanges the API key', async () => {
  let release = () => {};
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  const sent: (string | null)[] = [];
  // A token endpoint that holds the refresh's answer until the test releases it.
  const fetch = (async (_url: string | URL | Request, init?: RequestInit) => {
    const grant = grantOf(String(init?.body));
    sent.push(grant);
    const n = sent.length;
    if (grant === 'refresh_token') await held;
    const answer = { access_token: `at${n}`, token_type: 'Bearer', expires_in: 900, refresh_token: `rt${n}` };
    return new Response(JSON.stringify(answer), { headers: { 'content-type': 'application/json' } });
  }) as typeof globalThis.fetch;
  const persisted: TokenSet[] = [];
  const tokens = new TokenManager({
    baseUrl: 'http://127.0.0.1:9',
    apiKey: 'ck_test_reset',
    refreshToken: 'rt0',
    fetch,
    onTokens: (set) => {
      persisted.push(set);
    },
  });
  const before = tokens.getAccessToken();
  while (sent.length === 0) await new Promise((resolve) => setImmediate(resolve));
  tokens.reset();
  assert.equal(await tokens.getAccessToken(), 'at2', 'after reset() the API key is exchanged');
  release();
  assert.equal(await before, 'at1', 'the call made before reset() gets its answer');
  assert.equal(await tokens.getAccessToken(), 'at2', "the late answer's tokens are not installed");
  assert.deepEqual(sent, ['refresh_token', 'api_key']);
  assert.deepEqual(
    persisted.map((set) => set.refreshToken),
    ['rt2'],
    'only the new family is persisted',
  );
  assert.equal(tokens.toJSON().hasRefreshToken, true);
});

test('a renewal that fails while the access token still works is not tried again for 5 s', async () => {
  const sent: (string | null)[] = [];
  let failing = false;
  const fetch = (async (_url: string | URL | Request, init?: RequestInit) => {
    sent.push(grantOf(String(init?.body)));
    if (failing) return new Response('{"error":"server_error"}', { status: 500 });
    const answer = {
      access_token: `at${sent.length}`,
      token_type: 'Bearer',
      expires_in: 900,
      refresh_token: 'rt',
    };
    return new Response(JSON.stringify(answer), { headers: { 'content-type': 'application/json' } });
  }) as typeof globalThis.fetch;
  const clock = { now: Date.now() };
  const tokens = new TokenManager({
    baseUrl: 'http://127.0.0.1:9',
    apiKey: 'ck_test_pause',
    fetch,
    now: () => clock.now,
  });
  assert.equal(await tokens.getAccessToken(), 'at1');
  failing = true;
  clock.now += 850_000; // 50 s before expiry: time to refresh
  assert.equal(await tokens.getAccessToken(), 'at1', 'the token still works');
  assert.deepEqual(sent, ['api_key', 'refresh_token', 'api_key'], 'refresh lost, key exchange failed');
  clock.now += 4_000;
  assert.equal(await tokens.getAccessToken(), 'at1');
  assert.equal(sent.length, 3, 'no token request within 5 s of the failure');
  clock.now += 2_000;
  assert.equal(await tokens.getAccessToken(), 'at1');
  assert.deepEqual(sent, ['api_key', 'refresh_token', 'api_key', 'api_key'], 'then the key exchange again');
});

test('onTokens failing after a refresh: the rotated tokens stay in use, the persisted refresh token is dropped, and no key exchange follows', async () => {
  const sent: (string | null)[] = [];
  const refreshTokens: (string | null)[] = [];
  const fetch = (async (_url: string | URL | Request, init?: RequestInit) => {
    const form = new URLSearchParams(String(init?.body));
    sent.push(form.get('grant_type'));
    refreshTokens.push(form.get('refresh_token'));
    const n = sent.length;
    const answer = { access_token: `at${n}`, token_type: 'Bearer', expires_in: 900, refresh_token: `rt${n}` };
    return new Response(JSON.stringify(answer), { headers: { 'content-type': 'application/json' } });
  }) as typeof globalThis.fetch;
  const clock = { now: Date.now() };
  let storeDown = false;
  const dropped: number[] = [];
  const tokens = new TokenManager({
    baseUrl: 'http://127.0.0.1:9',
    apiKey: 'ck_test_store',
    fetch,
    now: () => clock.now,
    onTokens: () => {
      if (storeDown) throw new Error('the secret store is down');
    },
    onRefreshTokenDropped: () => {
      dropped.push(clock.now);
    },
  });
  assert.equal(await tokens.getAccessToken(), 'at1');
  clock.now += 900_000;
  storeDown = true;
  const error = await tokens.getAccessToken().then(
    () => assert.fail('a refresh whose tokens were not persisted was answered silently'),
    (e: unknown) => e as ComandaError,
  );
  assert.ok(error instanceof ComandaError);
  assert.equal(error.key, 'token_persistence_failed');
  assert.doesNotMatch(error.message, /no answer/);
  assert.deepEqual(sent, ['api_key', 'refresh_token'], 'the refresh was answered: no new family');
  assert.equal(dropped.length, 1, 'the persisted refresh token is consumed: the store is told to drop it');
  assert.equal(await tokens.getAccessToken(), 'at2', 'the rotated access token is used');
  storeDown = false;
  clock.now += 900_000;
  assert.equal(await tokens.getAccessToken(), 'at3');
  assert.deepEqual(refreshTokens, [null, 'rt1', 'rt2'], 'the family goes on with the token kept in memory');
});
