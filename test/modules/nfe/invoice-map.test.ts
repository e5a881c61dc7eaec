// One test per rule of invoice-map.ts (contract 2.8's groups).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  additionalFields,
  billing,
  itemsKey,
  mapInvoice,
  namedFields,
} from '../../../src/modules/nfe/invoice-map.ts';
import { type ProviderObject, parseProviderJson } from '../../../src/modules/nfe/provider-json.ts';

const parsed = (text: string) => parseProviderJson(text) as ProviderObject;
const json = (value: unknown) => JSON.stringify(value);

test('a group holds its named fields as text: absent stays absent, null and empty arrays stay', () => {
  const group = namedFields(['a', 'b', 'c', 'd', 'e', 'f']);
  const source = parsed('{"a":12.3,"b":null,"c":[],"d":[{"n":10.50,"t":true}],"e":"","x":1}');
  assert.equal(json(group(source)), '{"a":"12.3","b":null,"c":[],"d":[{"n":"10.50","t":"true"}],"e":""}');
});

test('billing keeps formas_pagamento[].tipo_integracao as JSON, written last; the rest is text', () => {
  const document = parsed(
    '{"formas_pagamento":[{"tipo_integracao":2,"valor_pagamento":300.00},{"valor_pagamento":1.5},"x"],"duplicatas":[{"valor":1.0}]}',
  );
  assert.equal(
    json(billing(document)),
    '{"duplicatas":[{"valor":"1.0"}],"formas_pagamento":[{"valor_pagamento":"300.00","tipo_integracao":2},{"valor_pagamento":"1.5"},"x"]}',
  );
});

test('fields no group names keep their names and JSON types in additional_fields', () => {
  const source = parsed('{"named":1,"futuro":10.50,"grupo":{"ativo":true},"__proto__":{"p":1},"itens":[]}');
  const extra = additionalFields(source, new Set(['named']), 'itens');
  assert.equal(json(extra), '{"futuro":10.50,"grupo":{"ativo":true},"__proto__":{"p":1}}');
  assert.equal(Object.getPrototypeOf(extra), Object.prototype);
});

test('items are read from itens, from items when itens is absent, and from neither otherwise', () => {
  assert.equal(itemsKey(parsed('{"items":[],"itens":[]}')), 'itens');
  assert.equal(itemsKey(parsed('{"items":[]}')), 'items');
  assert.equal(itemsKey(parsed('{}')), undefined);
});

test('the invoice: groups in the contract order, the additional fields with the top-level extras, then items', () => {
  const top = parsed('{"nome_emitente":"x","tipo_nfe":"1","campo_topo":1.50,"campo":"topo"}');
  const document = parsed(
    '{"campo":"doc","modelo":55,"items":[{"numero_item":1,"futuro":2.0}],"itens":null}',
  );
  const invoice = mapInvoice(top, document);
  assert.deepEqual(Object.keys(invoice).slice(-2), ['additional_fields', 'items']);
  assert.equal(
    json(invoice.additional_fields),
    '{"campo":"doc","items":[{"numero_item":1,"futuro":2.0}],"campo_topo":1.50}',
  );
  assert.equal(invoice.items, null);
  assert.equal(json((invoice.identification as ProviderObject).modelo), '"55"');
});
