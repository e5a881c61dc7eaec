// Edge documents and the exact `"invoice":…,"protocol":…` text the detail answers for them
// (detail-answers.json): numbers in every JSON spelling, escapes and lone surrogates, literals,
// nested and empty containers, payments with and without tipo_integracao, top-level extras.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { mapProviderBody } from '../../../src/modules/nfe/provider-mapping.ts';

const cases = JSON.parse(readFileSync(new URL('./detail-answers.json', import.meta.url), 'utf8')) as {
  name: string;
  provider_body: string;
  invoice_and_protocol: string;
}[];

for (const { name, provider_body, invoice_and_protocol } of cases) {
  test(`the ${name} document maps to the same invoice and protocol text, byte for byte`, () => {
    assert.equal(mapProviderBody(provider_body).documentJson, invoice_and_protocol);
    assert.equal(mapProviderBody(Buffer.from(provider_body)).documentJson, invoice_and_protocol);
  });
}
