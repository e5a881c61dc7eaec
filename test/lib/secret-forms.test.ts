import assert from 'node:assert/strict';
import { test } from 'node:test';
import { redact, secretForms } from '../../src/lib/secret-forms.ts';

test('a secret is masked raw, as its Basic credential (padded or not), URL-encoded and JSON-escaped', () => {
  const secret = 'tok/"SECRET"+9?';
  const basic = Buffer.from(`${secret}:`).toString('base64');
  const forms = secretForms(secret);
  const text = [
    secret,
    `Basic ${basic}`,
    basic.replace(/=+$/, ''),
    encodeURIComponent(secret),
    encodeURIComponent(`Basic ${basic}`),
    JSON.stringify({ token: secret }),
    basic.replaceAll('/', '\\/'),
  ].join(' | ');
  const masked = redact(text, forms);
  for (const form of [secret, basic, encodeURIComponent(secret), encodeURIComponent(basic), 'SECRET'])
    assert.equal(masked.includes(form), false, `${form} in ${masked}`);
  assert.equal(masked, '*** | Basic *** | *** | *** | Basic%20*** | {"token":"***"} | ***');
});

test('an empty secret masks nothing', () => {
  assert.deepEqual(secretForms(''), []);
  assert.equal(redact('text', secretForms('')), 'text');
});
