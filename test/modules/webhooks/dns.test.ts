// A receiver's host is resolved by c-ares (dns.Resolver), never by getaddrinfo (dns.lookup):
// libuv runs at most two getaddrinfo calls at once, so a receiver whose DNS does not answer held
// every lookup of the process (other receivers', the database's, the fiscal provider's) for as long
// as the system resolver waited, about 10 s, and made every other attempt of that time fail.
import assert from 'node:assert/strict';
import dns, { Resolver } from 'node:dns';
import { test } from 'node:test';
import { createSender } from '../../../src/modules/webhooks/sender.ts';
import { checkWebhookUrl } from '../../../src/modules/webhooks/url-safety.ts';
import { startDnsServer } from '../../support/dns-server.ts';

test('a webhook host is resolved without getaddrinfo, and a DNS that does not answer costs its attempt only', async (t) => {
  const server = await startDnsServer(
    { 'inward.test': ['10.0.0.7'], 'both.test': ['203.0.113.9', 'fd00::7'], 'v6.test': ['fe80::1'] },
    ['hang.test'],
  );
  t.after(() => server.close());
  const resolver = new Resolver({ timeout: 150, tries: 1 });
  resolver.setServers([server.server]);
  // Whatever getaddrinfo would answer, it is not asked.
  const lookups = t.mock.method(dns, 'lookup');
  const sender = createSender({ allowPrivate: false, timeoutMs: 2_000, resolver });
  t.after(() => sender.close());

  await t.test('at creation, every address of the host is judged, from the DNS', async () => {
    for (const host of ['inward.test', 'both.test', 'v6.test'])
      await assert.rejects(
        checkWebhookUrl(`https://${host}/hook`, false, resolver),
        /private or reserved/,
        host,
      );
    await assert.rejects(checkWebhookUrl('https://missing.test/hook', false, resolver), /does not resolve/);
  });

  await t.test('at creation, a DNS that does not answer is refused within its time limit', async () => {
    const started = Date.now();
    await assert.rejects(checkWebhookUrl('https://hang.test/hook', false, resolver), /does not resolve/);
    assert.ok(Date.now() - started < 1_500, `${Date.now() - started} ms`);
  });

  await t.test('at delivery, a name resolving inward is refused before any connection', async () => {
    const outcome = await sender.send('https://inward.test/hook', {}, '{}');
    assert.equal(outcome.ok, false);
    assert.match(String(outcome.error), /EWEBHOOKPRIVATE/);
  });

  await t.test('at delivery, a DNS that does not answer ends the attempt, not the time limit', async () => {
    const outcome = await sender.send('https://hang.test/hook', {}, '{}');
    assert.equal(outcome.ok, false);
    assert.match(String(outcome.error), /ETIMEOUT/);
    assert.ok(outcome.durationMs < 1_500, String(outcome.durationMs));
  });

  assert.equal(lookups.mock.callCount(), 0, 'dns.lookup was called');
});
