import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Principal } from '../../../src/http/principal.ts';
import { createEndpoint } from '../../../src/modules/webhooks/endpoint-service.ts';
import { createWebhookWorker } from '../../../src/modules/webhooks/worker.ts';
import { buildTestApp } from '../../support/app.ts';
import { startReceiver } from '../../support/receiver.ts';
import { addStaff, csrfOf, seedRestaurants, Visitor } from './support.ts';

test('webhooks in the console', async (t) => {
  const { app, ctx } = await buildTestApp(t, { config: { webhookAllowPrivate: true } });
  const [bella, kai] = await seedRestaurants(ctx.db, ['Cantina Bella', 'Sushi Kai']);
  await addStaff(ctx.db, 'ana@example.com', [bella]);
  const receiver = await startReceiver(t);
  const keys = { secretKey: ctx.secrets.fiscalTokenKey, allowPrivate: true };
  const sessionOf = (id: number): Principal => ({
    kind: 'restaurant_session',
    sessionId: 's',
    restaurantIds: [id],
    scopes: [],
  });
  const ours = await createEndpoint(
    ctx.db,
    bella,
    sessionOf(bella),
    { url: receiver.url(), events: ['product.updated'], description: 'POS <b>balcão</b>' },
    keys,
  );
  const theirs = await createEndpoint(
    ctx.db,
    kai,
    sessionOf(kai),
    { url: receiver.url('/kai'), events: ['menu.updated'] },
    keys,
  );
  const worker = createWebhookWorker({
    db: ctx.db,
    secretKey: keys.secretKey,
    allowPrivate: true,
    log: (err) => assert.fail(String(err)),
  });
  t.after(() => worker.stop());
  const ana = new Visitor(app);
  await ana.signIn('ana@example.com');

  await t.test("lists the restaurant's endpoints only, with their description escaped", async () => {
    const page = await ana.get('/console/webhooks');
    assert.equal(page.statusCode, 200);
    assert.ok(page.body.includes(receiver.url()));
    assert.ok(!page.body.includes(receiver.url('/kai')));
    assert.ok(page.body.includes('POS &lt;b&gt;balcão&lt;/b&gt;'));
    assert.ok(page.body.includes('No delivery yet.'));
    assert.ok(page.body.includes('href="/console/webhooks" aria-current="page"'));
  });

  await t.test('"Send test event" queues a ping that then shows in the deliveries', async () => {
    const csrf = csrfOf((await ana.get('/console/webhooks')).body);
    const sent = await ana.post(`/console/webhooks/${ours.id}/test`, { csrf });
    assert.equal(sent.statusCode, 303);
    assert.equal(sent.headers.location, `/console/webhooks?tested=${ours.id}`);
    await worker.runOnce();
    assert.equal(JSON.parse(receiver.received[0].body).type, 'ping');
    const page = await ana.get(`/console/webhooks?tested=${ours.id}`);
    // Named by its URL, as the page shows it: the endpoint's id is shown nowhere.
    assert.ok(page.body.includes(`A test event was queued for ${receiver.url()}: it shows below`));
    assert.match(page.body, /<code>ping<\/code>/);
    assert.ok(page.body.includes('HTTP 200 in'));
    // A delivery has no action: no empty "Action" column (an empty labelled row on a phone).
    assert.ok(!page.body.includes('data-label="Action"'));
    assert.ok(!page.body.includes('<span class="sr-only">Action</span>'));
  });

  await t.test('a pending delivery says when its next attempt is; a finished one has none', async () => {
    receiver.respond = (_req, res) => res.writeHead(503).end('down');
    t.after(() => {
      receiver.respond = (_req, res) => res.writeHead(200).end('ok');
    });
    await ana.post(`/console/webhooks/${ours.id}/test`, {
      csrf: csrfOf((await ana.get('/console/webhooks')).body),
    });
    // Queued and not tried yet: the worker may take it at once.
    assert.ok((await ana.get('/console/webhooks')).body.includes('data-label="Next attempt"><div>due now<'));
    await worker.runOnce();
    const pending = await ctx.db
      .selectFrom('webhook_deliveries')
      .select(['next_attempt_at'])
      .where('endpoint_id', '=', ours.id)
      .where('status', '=', 'pending')
      .executeTakeFirstOrThrow();
    assert.ok(pending.next_attempt_at > new Date(), 'the failed attempt is retried later');
    const page = await ana.get('/console/webhooks');
    const rows = page.body.split('<tr>').slice(2); // after the head's row: newest delivery first
    assert.equal(rows.length, 2);
    assert.match(rows[0], /status-pending/);
    assert.ok(rows[0].includes('HTTP 503 in'));
    const next = pending.next_attempt_at.toISOString();
    assert.match(rows[0], new RegExp(`data-label="Next attempt"><div><time datetime="${next}">`));
    assert.match(rows[1], /status-succeeded/);
    assert.match(rows[1], /data-label="Next attempt"><div><span class="muted">—<\/span>/);
    assert.ok(page.body.includes('<th scope="col">Next attempt</th>'));
    // No action column: the last column (the next attempt's date and time) wraps like the others.
    assert.ok(page.body.includes('<table class="plain">'));
  });

  await t.test('a disabled endpoint shows why and "Enable again", which enables it', async () => {
    await ctx.db
      .updateTable('webhook_endpoints')
      .set({ disabled_at: new Date(), disabled_reason: 'every delivery failed for 3 days' })
      .where('id', '=', ours.id)
      .execute();
    const page = await ana.get('/console/webhooks');
    assert.ok(page.body.includes('Disabled: every delivery failed for 3 days.'));
    assert.ok(page.body.includes(`action="/console/webhooks/${ours.id}/enable"`));
    assert.ok(!page.body.includes(`action="/console/webhooks/${ours.id}/test"`));
    const enabled = await ana.post(`/console/webhooks/${ours.id}/enable`, { csrf: csrfOf(page.body) });
    assert.equal(enabled.statusCode, 303);
    assert.equal(enabled.headers.location, `/console/webhooks?enabled=${ours.id}`);
    const after = await ana.get(`/console/webhooks?enabled=${ours.id}`);
    assert.ok(after.body.includes(`${receiver.url()} is enabled again`));
    assert.ok(after.body.includes(`action="/console/webhooks/${ours.id}/test"`));
    assert.equal(
      (await ana.post(`/console/webhooks/${theirs.id}/enable`, { csrf: csrfOf(after.body) })).statusCode,
      404,
    );
  });

  await t.test(
    "the button refuses another restaurant's endpoint and a form without its CSRF token",
    async () => {
      const csrf = csrfOf((await ana.get('/console/webhooks')).body);
      assert.equal((await ana.post(`/console/webhooks/${theirs.id}/test`, { csrf })).statusCode, 404);
      assert.equal((await ana.post(`/console/webhooks/${ours.id}/test`, { csrf: 'forged' })).statusCode, 403);
    },
  );
});
