import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import { Check } from 'typebox/value';
import { encodeCursor } from '../../../src/modules/events/cursor.ts';
import { purgeEvents } from '../../../src/modules/events/feed-repository.ts';
import { recordEvents } from '../../../src/modules/events/outbox.ts';
import { EventsPage } from '../../../src/modules/events/schemas.ts';
import { ALL_SCOPES, eventsWorld, feedSettled } from '../../support/events-world.ts';

test('event feed pages, scopes and retention', async (t) => {
  const world = await eventsWorld(t);
  const { app, db, restaurant, other } = world;
  const get = async (query: string, authorization: string) => {
    await feedSettled(db);
    return app.inject({ url: `/v1/events${query}`, headers: { authorization } });
  };
  const all = await world.bearer();
  await recordEvents(db, [
    ...[1, 2, 3, 4, 5].map((n) => ({
      restaurant_id: restaurant,
      type: 'product.updated' as const,
      data: { product_id: n },
    })),
    { restaurant_id: restaurant, type: 'nfe_received.created', data: { nfe_received_id: 7 } },
    { restaurant_id: restaurant, type: 'cash_flows.updated', data: { cash_flow_ids: [9] } },
    { restaurant_id: restaurant, type: 'app.installed', data: { client_id: 'pos' } },
  ]);

  await t.test('pages follow next_cursor in order until has_more is false, then stay put', async () => {
    const seen: string[] = [];
    let after = '';
    for (let page = 0; page < 10; page++) {
      const body = (await get(`?limit=3${after}`, all)).json();
      seen.push(...body.data.map((e: { id: string }) => e.id));
      after = `&after=${body.next_cursor}`;
      if (!body.has_more) break;
    }
    assert.equal(seen.length, 8);
    assert.equal(new Set(seen).size, 8);
    const rest = (await get(`?limit=3${after}`, all)).json();
    assert.deepEqual(rest.data, []);
    assert.equal(`&after=${rest.next_cursor}`, after);
    const { rows } = await sql<{ id: string }>`select id from events order by seq`.execute(db);
    assert.deepEqual(
      seen,
      rows.map((r) => r.id),
    );
  });

  await t.test(
    "a page, assembled from the events' own JSON, is what the response schema describes",
    async () => {
      const res = await get('?limit=3', all);
      assert.match(String(res.headers['content-type']), /^application\/json/);
      const page = res.json();
      assert.ok(Check(EventsPage, page), res.body);
      assert.deepEqual(Object.keys(page.data[0]), ['id', 'data', 'type', 'created_at', 'restaurant_id']);
      assert.equal(page.data[0].created_at, new Date(page.data[0].created_at).toISOString());
    },
  );

  await t.test('transactions are ordered by number, not by the digits of their xid', async () => {
    // xid 9 ended before xid 10 began: as text, '10' sorts first and a cursor after it skipped 9.
    await sql`insert into events (restaurant_id, type, data, xid)
      values (${other}, 'menu.updated', '{"n": 9}', '9'), (${other}, 'menu.updated', '{"n": 10}', '10')`.execute(
      db,
    );
    const otherReader = await world.bearer(ALL_SCOPES, [other]);
    const seen: number[] = [];
    let after = '';
    for (let page = 0; page < 4; page++) {
      const body = (await get(`?limit=1${after}&restaurant_id=${other}`, otherReader)).json();
      seen.push(...body.data.map((e: { data: { n: number } }) => e.data.n));
      after = `&after=${body.next_cursor}`;
      if (!body.has_more) break;
    }
    assert.deepEqual(seen, [9, 10]);
  });

  await t.test('types filters the feed', async () => {
    const body = (await get('?types=nfe_received.created,cash_flows.updated', all)).json();
    assert.deepEqual(
      body.data.map((e: { type: string }) => e.type),
      ['nfe_received.created', 'cash_flows.updated'],
    );
  });

  await t.test('a credential sees only the types of the resources it may read', async () => {
    const typesFor = async (scopes: string[]) => [
      ...new Set(
        (await get('', await world.bearer(scopes))).json().data.map((e: { type: string }) => e.type),
      ),
    ];
    assert.deepEqual(await typesFor(['menu:read']), ['product.updated']);
    assert.deepEqual(await typesFor(['financial:read']), ['cash_flows.updated']);
    assert.deepEqual(await typesFor(['nfe-received:read']), ['nfe_received.created']);
    assert.deepEqual(await typesFor(['webhooks:read']), ['app.installed']);
  });

  await t.test('asking for a type the credential may not read is 403 insufficient_scope', async () => {
    const res = await get('?types=cash_flows.updated', await world.bearer(['products:read']));
    assert.equal(res.statusCode, 403);
    assert.equal(res.json().key, 'insufficient_scope');
    assert.match(res.json().message, /financial:read/);
  });

  await t.test('a credential with no read scope is refused the feed', async () => {
    const res = await get('', await world.bearer(['products:write']));
    assert.equal(res.statusCode, 403);
  });

  await t.test('an unknown type or a malformed cursor is 400 invalid_query', async () => {
    const unknown = await get('?types=product.deleted', all);
    assert.equal(unknown.statusCode, 400);
    assert.equal(unknown.json().key, 'invalid_query');
    assert.match(unknown.json().message, /product\.deleted/);
    const bad = await get('?after=not-a-cursor', all);
    assert.equal(bad.statusCode, 400);
    assert.equal(bad.json().errors[0].field, 'after');
  });

  await t.test('an empty type in the list (two commas, one at an end) is 400 saying so', async () => {
    for (const types of ['product.updated,', ',', 'product.updated,,menu.updated', ' ']) {
      const res = await get(`?types=${encodeURIComponent(types)}`, all);
      assert.equal(res.statusCode, 400, types);
      assert.equal(res.json().key, 'invalid_query');
      assert.deepEqual(res.json().errors, [
        { field: 'types', message: 'has an empty type: separate the types with single commas' },
      ]);
    }
  });
  await t.test('a repeated types= (or after=) is 400 invalid_query saying to give it once', async () => {
    const res = await get('?types=product.updated&types=menu.updated', all);
    assert.equal(res.statusCode, 400, res.body);
    assert.equal(res.json().key, 'invalid_query');
    const message = 'is given more than once: give it once (a list goes in one, comma-separated)';
    assert.deepEqual(res.json().errors, [{ field: 'types', message }]);
    assert.equal(res.json().message, `Invalid query: types ${message}.`);
    const after = await get('?after=a&after=b', all);
    assert.equal(after.statusCode, 400, after.body);
    assert.deepEqual(after.json().errors, [{ field: 'after', message }]);
  });

  await t.test(
    'a cursor naming a transaction beyond the range of xid8 is 400 invalid_query, not 500',
    async () => {
      // 20 digits pass the cursor's pattern, but xid8 ends at 2^64 - 1.
      for (const xid of ['18446744073709551616', '99999999999999999999']) {
        const res = await get(`?after=${encodeCursor({ xid, seq: 1 }, restaurant)}`, all);
        assert.equal(res.statusCode, 400, res.body);
        assert.equal(res.json().key, 'invalid_query');
        assert.equal(res.json().errors[0].field, 'after');
      }
      const last = await get(
        `?after=${encodeCursor({ xid: '18446744073709551615', seq: 1 }, restaurant)}`,
        all,
      );
      assert.equal(last.statusCode, 200, last.body);
      assert.deepEqual(last.json().data, []);
    },
  );

  await t.test(
    'a cursor whose seq is past 2^53 - 1 is 400 invalid_query, not rounded to another place',
    async () => {
      const plain = (seq: string) => Buffer.from(`v2.1.${seq}.${restaurant}`).toString('base64url');
      const past = await get(`?after=${plain('9007199254740993')}`, all);
      assert.equal(past.statusCode, 400, past.body);
      assert.equal(past.json().errors[0].field, 'after');
      const safe = await get(`?after=${plain(String(Number.MAX_SAFE_INTEGER))}`, all);
      assert.equal(safe.statusCode, 200, safe.body);
    },
  );

  await t.test(
    "a cursor of one restaurant's feed is 400 invalid_query on another's, not a skip",
    async (st) => {
      // One key for both restaurants: B's event commits first, A's after it. A's cursor on B's feed
      // used to be taken as a place in B's feed too, and B's event, never read, was skipped.
      const both = await world.bearer(ALL_SCOPES, [restaurant, other]);
      st.after(() => sql`delete from events where data->>'n' in ('a', 'b')`.execute(db));
      await recordEvents(db, [{ restaurant_id: other, type: 'menu.updated', data: { n: 'b' } }]);
      await recordEvents(db, [{ restaurant_id: restaurant, type: 'menu.updated', data: { n: 'a' } }]);
      const ours = (await get(`?restaurant_id=${restaurant}&types=menu.updated`, both)).json();
      assert.equal(ours.data.at(-1).data.n, 'a');
      const res = await get(`?restaurant_id=${other}&types=menu.updated&after=${ours.next_cursor}`, both);
      assert.equal(res.statusCode, 400, res.body);
      assert.equal(res.json().key, 'invalid_query');
      assert.equal(res.json().errors[0].field, 'after');
      const theirs = (await get(`?restaurant_id=${other}&types=menu.updated`, both)).json();
      assert.equal(theirs.data.at(-1).data.n, 'b');
      const again = await get(`?restaurant_id=${other}&types=menu.updated&after=${theirs.next_cursor}`, both);
      assert.equal(again.statusCode, 200, again.body);
      assert.deepEqual(again.json().data, []);
    },
  );

  await t.test(
    'a cursor expires only when an event its feed would show next was purged, not with the age of its own',
    async (st) => {
      // A feed of app.installed, quiet for longer than the retention: its cursor names an event the
      // purge has deleted, and the product events after it are gone too, yet it missed nothing.
      const key = await world.bearer(ALL_SCOPES, [other]);
      const clear = async () => {
        await sql`delete from events where restaurant_id = ${other}`.execute(db);
        await sql`delete from event_purges where restaurant_id = ${other}`.execute(db);
      };
      await clear();
      st.after(clear);
      const feed = (query: string) => get(`?restaurant_id=${other}&${query}`, key);
      await recordEvents(db, [{ restaurant_id: other, type: 'app.installed', data: { client_id: 'erp' } }]);
      await recordEvents(db, [{ restaurant_id: other, type: 'product.updated', data: { product_id: 1 } }]);
      await recordEvents(db, [{ restaurant_id: other, type: 'product.updated', data: { product_id: 2 } }]);
      await sql`update events set created_at = now() - interval '31 days'
        where restaurant_id = ${other}`.execute(db);
      const cursor = (await feed('types=app.installed')).json().next_cursor;
      assert.equal(await purgeEvents(db, 30), 3);

      const quiet = await feed(`types=app.installed&after=${cursor}`);
      assert.equal(quiet.statusCode, 200, quiet.body);
      assert.deepEqual(quiet.json().data, []);
      assert.equal(quiet.json().next_cursor, cursor);
      const missed = await feed(`types=app.installed,product.updated&after=${cursor}`);
      assert.equal(missed.statusCode, 400, missed.body);
      assert.equal(missed.json().key, 'invalid_query');
      assert.equal(missed.json().errors[0].field, 'after');
      assert.match(missed.json().message, /expired: events after it were purged/);

      await recordEvents(db, [{ restaurant_id: other, type: 'app.installed', data: { client_id: 'pos' } }]);
      const next = (await feed(`types=app.installed&after=${cursor}`)).json();
      assert.deepEqual(
        next.data.map((e: { data: { client_id: string } }) => e.data.client_id),
        ['pos'],
      );
    },
  );

  await t.test(
    "a cursor handed out before purges were recorded still expires with age, and reads on in today's form while young",
    async () => {
      // Its form then: "<xid>.<seq>.<created_at ms>[.<restaurant>]". A purge before event_purges
      // existed left no record, so such a cursor older than the retention may have missed events.
      const legacy = (...parts: (string | number)[]) => Buffer.from(parts.join('.')).toString('base64url');
      const old = await get(`?after=${legacy(1, 1, Date.now() - 31 * 86_400_000)}`, all);
      assert.equal(old.statusCode, 400);
      assert.equal(old.json().key, 'invalid_query');
      assert.match(old.json().message, /expired/);
      const { rows } = await sql<{ xid: string; seq: number }>`select xid::text as xid, seq::int as seq
        from events where restaurant_id = ${restaurant} order by xid desc, seq desc limit 1`.execute(db);
      const young = await get(`?after=${legacy(rows[0].xid, rows[0].seq, Date.now(), restaurant)}`, all);
      assert.equal(young.statusCode, 200, young.body);
      assert.deepEqual(young.json().data, []);
      assert.equal(young.json().next_cursor, encodeCursor(rows[0], restaurant));
    },
  );

  await t.test('the purge removes events older than the retention and keeps the others', async () => {
    await sql`update events set created_at = now() - interval '31 days'
      where type = 'product.updated'`.execute(db);
    assert.equal(await purgeEvents(db, 30), 5);
    const left = (await get('', all)).json().data.map((e: { type: string }) => e.type);
    assert.deepEqual(left, ['nfe_received.created', 'cash_flows.updated', 'app.installed']);
  });
});
