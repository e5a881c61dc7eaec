import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createSender } from '../../../src/modules/webhooks/sender.ts';
import { isPublicAddress } from '../../../src/modules/webhooks/url-safety.ts';
import { eventsWorld } from '../../support/events-world.ts';
import { startReceiver } from '../../support/receiver.ts';

test('webhook URL safety', async (t) => {
  const world = await eventsWorld(t);
  const authorization = await world.bearer();
  const receiver = await startReceiver(t);
  const create = (url: string) =>
    world.app.inject({
      method: 'POST',
      url: '/v1/webhook-endpoints',
      headers: { authorization },
      payload: { url, events: ['product.updated'] },
    });

  await t.test('loopback, private, link-local and metadata addresses are judged private', () => {
    for (const address of [
      '127.0.0.1',
      '10.1.2.3',
      '172.20.0.1',
      '192.168.0.10',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '::1',
      'fd00:ec2::254',
      'fe80::1',
      '::ffff:127.0.0.1',
    ]) {
      assert.equal(isPublicAddress(address), false, address);
    }
    for (const address of ['8.8.8.8', '1.1.1.1', '2606:4700:4700::1111'])
      assert.equal(isPublicAddress(address), true);
  });

  await t.test('NAT64 addresses, of the well-known and of the local-use prefix, are judged private', () => {
    // 64:ff9b::/96 (RFC 6052) and 64:ff9b:1::/48 (RFC 8215): a translator on the network maps
    // them to any IPv4 address, here 169.254.169.254 and 10.0.0.1.
    for (const address of ['64:ff9b::a9fe:a9fe', '64:ff9b:1::a00:1', '64:ff9b:1:ffff::a00:1'])
      assert.equal(isPublicAddress(address), false, address);
  });

  await t.test('IPv6 forms that embed or stand for a private IPv4 address are judged private', () => {
    // ::a.b.c.d (IPv4-compatible, deprecated: ::7f00:1 is how a URL writes ::127.0.0.1), 6to4
    // (2002:AABB:CCDD::/48 reaches AA.BB.CC.DD through a relay) and Teredo, whose IPv4 address is
    // obscured; a 6to4 address of a public IPv4 address stays public.
    for (const address of [
      '::7f00:1',
      '::127.0.0.1',
      '2002:7f00:1::1',
      '2002:a9fe:a9fe::',
      '2002:c0a8:101::1',
      '2002:a00::',
      '2001:0:4136:e378:8000:63bf:3fff:fdd2',
    ])
      assert.equal(isPublicAddress(address), false, address);
    assert.equal(isPublicAddress('2002:808:808::1'), true);
  });

  await t.test(
    'creating an endpoint on a private host or over http is 400 invalid_body naming url',
    async () => {
      for (const [url, reason] of [
        ['https://127.0.0.1/hook', /private or reserved/],
        ['https://169.254.169.254/latest/meta-data', /private or reserved/],
        ['https://[::1]/hook', /private or reserved/],
        ['https://[::127.0.0.1]/hook', /private or reserved/],
        ['https://localhost/hook', /private or reserved/],
        [receiver.url(), /must use https/],
        ['https://user:pw@example.com/hook', /user name or password/],
      ] as const) {
        const res = await create(url);
        assert.equal(res.statusCode, 400, url);
        assert.equal(res.json().key, 'invalid_body');
        assert.equal(res.json().errors[0].field, 'url');
        assert.match(res.json().message, reason, url);
      }
    },
  );

  await t.test('a delivery never connects to a private address, by literal or by name', async () => {
    const sender = createSender({ allowPrivate: false, timeoutMs: 1000 });
    t.after(() => sender.close());
    const literal = await sender.send(receiver.url(), {}, '{}');
    assert.equal(literal.ok, false);
    assert.match(String(literal.error), /private or reserved/);
    const byName = await sender.send(receiver.url().replace('127.0.0.1', 'localhost'), {}, '{}');
    assert.equal(byName.ok, false);
    assert.match(String(byName.error), /EWEBHOOKPRIVATE/);
    assert.equal(receiver.received.length, 0);
  });
});
