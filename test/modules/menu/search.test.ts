import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { matchesSearch, normalizeSearch } from '../../../src/modules/menu/search.ts';

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

describe('matchesSearch', () => {
  const paoDeQueijo = { name: 'Pão de Queijo', description: 'Porção com 10 unidades, feito na hora' };

  test('the name matches without accents or case', () => {
    assert.equal(matchesSearch(paoDeQueijo, normalizeSearch('pao')), true);
    assert.equal(matchesSearch(paoDeQueijo, normalizeSearch('QUEIJO')), true);
  });

  test('an accented needle matches an unaccented name', () => {
    assert.equal(matchesSearch({ name: 'Acai 500ml', description: null }, normalizeSearch('Açaí')), true);
  });

  test('the description matches too', () => {
    assert.equal(matchesSearch(paoDeQueijo, normalizeSearch('porcao')), true);
    assert.equal(matchesSearch(paoDeQueijo, normalizeSearch('feito na')), true);
  });

  test('a product without description is matched on its name only', () => {
    const product = { name: 'Coca-Cola', description: null };
    assert.equal(matchesSearch(product, normalizeSearch('coca')), true);
    assert.equal(matchesSearch(product, normalizeSearch('guarana')), false);
  });

  test('text found in neither field does not match', () => {
    assert.equal(matchesSearch(paoDeQueijo, normalizeSearch('pizza')), false);
  });

  test('an empty search matches every product', () => {
    assert.equal(matchesSearch(paoDeQueijo, normalizeSearch('   ')), true);
  });
});
