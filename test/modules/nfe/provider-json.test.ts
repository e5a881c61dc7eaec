import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildProviderDocument } from '../../../src/fiscal-simulator/simulator-documents.ts';
import {
  isProviderObject,
  isRawNumber,
  parseProviderJson,
  providerText,
  type RawNumber,
  rawJSON,
} from '../../../src/modules/nfe/provider-json.ts';

test('numbers keep the exact text the provider wrote', () => {
  const value = parseProviderJson('{"a":10.50,"b":12.3456789012,"c":-0,"d":1e5,"e":12345678901234567890}');
  assert.ok(isProviderObject(value));
  const texts = Object.values(value).map((number) => (number as RawNumber).rawJSON);
  assert.deepEqual(texts, ['10.50', '12.3456789012', '-0', '1e5', '12345678901234567890']);
  assert.ok(isRawNumber(value.a));
});

test('strings, booleans, nulls, arrays and nesting are parsed as JSON.parse does', () => {
  const value = parseProviderJson('{"s":"02013000","t":true,"n":null,"list":[{"x":"1"}],"empty":[]}');
  assert.deepEqual(value, { s: '02013000', t: true, n: null, list: [{ x: '1' }], empty: [] });
});

test('a Buffer body is decoded as UTF-8 and a leading byte-order mark is ignored', () => {
  const value = parseProviderJson(Buffer.from('\ufeff{"nome":"Açaí","v":1.0}'));
  assert.ok(isProviderObject(value));
  assert.equal(value.nome, 'Açaí');
  assert.equal((value.v as RawNumber).rawJSON, '1.0');
});

test('invalid JSON throws a SyntaxError', () => {
  assert.throws(() => parseProviderJson('{"chave_nfe": "35'), SyntaxError);
  assert.throws(() => parseProviderJson(''), SyntaxError);
});

test('serialising a parsed body writes every number back with its original text', () => {
  const source = '{"a":10.50,"b":[1e400,0.10000000000000000001],"c":"x"}';
  assert.equal(JSON.stringify(parseProviderJson(source)), source);
});

test('text conversion turns numbers and booleans into text at any depth and keeps nulls', () => {
  const value = parseProviderJson('{"a":12.3,"b":[{"c":2.0000,"d":false}],"e":null,"f":"0.10"}');
  assert.deepEqual(providerText(value), { a: '12.3', b: [{ c: '2.0000', d: 'false' }], e: null, f: '0.10' });
});

test('parsed values keep their JSON types, numbers exactly as written when a double cannot', () => {
  const value = parseProviderJson('{"i":7,"d":12.3,"z":10.50,"huge":1e400,"s":"7","b":true,"n":null}');
  const parsed = value as Record<string, unknown>;
  assert.equal(parsed.s, '7');
  assert.equal(parsed.b, true);
  assert.equal(parsed.n, null);
  assert.equal(JSON.stringify(value), '{"i":7,"d":12.3,"z":10.50,"huge":1e400,"s":"7","b":true,"n":null}');
});

test('a __proto__ key stays a data field and never becomes a prototype', () => {
  const value = parseProviderJson('{"__proto__":{"polluted":"yes"},"a":1}');
  for (const converted of [providerText(value), value] as Record<string, unknown>[]) {
    assert.equal(Object.getPrototypeOf(converted), Object.prototype);
    assert.equal((converted as { polluted?: unknown }).polluted, undefined);
    assert.ok(Object.hasOwn(converted, '__proto__'));
    assert.match(JSON.stringify(converted), /"__proto__":\{"polluted":"yes"\}/);
  }
});

test('a whole provider document parses to what JSON.parse with a source-text reviver gives', () => {
  const source = JSON.stringify(
    buildProviderDocument({
      access_key: '35260112345678000199550010000000011000000010',
      issuer_name: 'Fornecedor "Aspas" \\ Ltda',
      issuer_document: '12345678000199',
      total: '10.50',
      issued_at: '2026-01-10T13:00:00Z',
    }),
  );
  const reviver = (_key: string, value: unknown, context?: { source?: string }) =>
    typeof value === 'number' ? rawJSON(context?.source ?? String(value)) : value;
  const parsed = parseProviderJson(source);
  assert.deepEqual(parsed, JSON.parse(source, reviver as (key: string, value: unknown) => unknown));
  assert.equal(JSON.stringify(parsed), source);
});

test('a string that starts with U+0001 stays a string, beside numbers that stay numbers', () => {
  const value = parseProviderJson('{"a":"\\u00011.5","b":[1.50,"-2"],"\\u0001c":3}');
  assert.ok(isProviderObject(value));
  assert.equal(value.a, '\u00011.5');
  assert.equal(JSON.stringify(value.b), '[1.50,"-2"]');
  assert.equal(JSON.stringify(value['\u0001c']), '3');
});

test('numbers JSON does not allow are a SyntaxError, wherever they stand', () => {
  for (const source of [
    '{1:2}',
    '[01]',
    '[1.]',
    '[-]',
    '[.5]',
    '{"a":1.2.3}',
    '[1e]',
    '[+1]',
    '[-Infinity]',
  ]) {
    assert.throws(() => parseProviderJson(source), SyntaxError, source);
  }
});
