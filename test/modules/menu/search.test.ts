import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { normalizeSearch } from '../../../src/modules/menu/search.ts';

describe('normalizeSearch', () => {
  test('accents and case are removed', () => {
    assert.equal(normalizeSearch('Pão de Açúcar'), 'pao de acucar');
    assert.equal(normalizeSearch('CAFÉ'), 'cafe');
    assert.equal(normalizeSearch('Açaí com Guaraná'), 'acai com guarana');
  });

  test('precomposed and decomposed accents normalise alike', () => {
    assert.equal(normalizeSearch('caf\u00e9'), normalizeSearch('cafe\u0301'));
  });

  test('a capital with a dot above lowers to a plain i', () => {
    assert.equal(normalizeSearch('İSTANBUL'), 'istanbul');
  });

  test('surrounding spaces are trimmed', () => {
    assert.equal(normalizeSearch('  pizza '), 'pizza');
  });
});
