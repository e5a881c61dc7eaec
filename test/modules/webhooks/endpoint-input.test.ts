import assert from 'node:assert/strict';
import { test } from 'node:test';
import { eventsWorld } from '../../support/events-world.ts';

test('a NUL character in the url or the description is 400 invalid_body naming the field, not a 500', async (t) => {
  const world = await eventsWorld(t, { webhookAllowPrivate: true });
  const authorization = await world.bearer();
  for (const [field, payload] of [
    ['url', { url: 'http://127.0.0.1:9/ho\u0000ok', events: ['product.updated'] }],
    [
      'description',
      { url: 'http://127.0.0.1:9/hook', events: ['product.updated'], description: 'P\u0000OS' },
    ],
  ] as const) {
    const res = await world.app.inject({
      method: 'POST',
      url: '/v1/webhook-endpoints',
      headers: { authorization },
      payload,
    });
    assert.equal(res.statusCode, 400, res.body);
    assert.equal(res.json().key, 'invalid_body');
    assert.equal(res.json().errors[0].field, field);
  }
});
