import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { NfeDetailResponse } from '../../../src/modules/nfe/detail-schema.ts';
import {
  mapReceivedNfe,
  mapReceivedNfeDetail,
  receivedNfeDetailBody,
} from '../../../src/modules/nfe/nfe-map.ts';
import { DOCUMENT_GROUPS, ITEM_GROUPS, PROTOCOL_FIELDS } from '../../../src/modules/nfe/provider-fields.ts';
import { parseProviderJson } from '../../../src/modules/nfe/provider-json.ts';
import {
  assertProviderDocument,
  mapProviderDetail,
  mapProviderRecipient,
  mapProviderSummary,
} from '../../../src/modules/nfe/provider-mapping.ts';
import { transcodeProviderBody } from '../../../src/modules/nfe/provider-transcode.ts';
import { buildProviderDocument } from '../../../src/modules/nfe/simulator-documents.ts';
import { ITEM_SHAPE } from '../../../src/modules/nfe/transcode-document.ts';
import { accessKey } from '../../support/nfe-world.ts';
import { type Serialised, schemaSerialiser } from './schema-serialiser.ts';

// The old path: parse keeping numbers' text, check, map, and the schema serialiser. The new
// path must give the same bytes whenever it takes a body, and leave every other body to it.
let old: Awaited<ReturnType<typeof schemaSerialiser>>;
before(async () => {
  old = await schemaSerialiser(NfeDetailResponse);
});
after(() => old.close());

const local = mapReceivedNfe(
  {
    id: 7,
    restaurant_id: 3,
    brand_id: 4,
    brand_name: 'Bella',
    brand_fantasy_name: null,
    brand_cnpj: '01234567000189',
    access_key: accessKey(42),
    series: '001',
    state: 'SP',
    type: '1',
    issuer_name: 'Local',
    issuer_document: '1',
    total: '1.00',
    situation: 'autorizada',
    complete: false,
    manifestation_type: 'ciencia',
    manifested_at: '2026-01-11 10:00:00',
    correction_number: null,
    correction_text: null,
    correction_issued_at: null,
    canceled_at: null,
    cancellation_reason: null,
    locally_canceled_at: null,
    return_reference: 'DEV-1',
    reference: null,
    url: null,
    provider_id: 9,
    version: 1,
    digest: null,
    sped: '{"valor": 10.50}',
    issued_at: '2026-01-10 13:00:00',
    processing_at: null,
    created_at: '2026-01-10 13:05:00',
    updated_at: '2026-01-10 13:05:00',
  },
  null,
);
const extras = { providerId: 12, returnInProgress: true };

/** What the old path answered for this provider body: the status and bytes, or 502 (refused). */
async function before_(body: Buffer): Promise<Serialised | 'refused'> {
  let document: ReturnType<typeof parseProviderJson>;
  try {
    document = parseProviderJson(body);
    assertProviderDocument(document);
  } catch {
    return 'refused';
  }
  return old.serialise(mapReceivedNfeDetail(local, mapProviderDetail(document), extras));
}

/** The new path's bytes, or null when it leaves the body to the old path. */
function now(body: Buffer): string | null {
  const transcoded = transcodeProviderBody(body);
  if (!transcoded) return null;
  const provider = {
    summary: mapProviderSummary(transcoded.summary),
    recipient: mapProviderRecipient(transcoded.summary),
  };
  return receivedNfeDetailBody(local, provider, transcoded, extras).toString();
}

async function assertSame(body: Buffer | string, fast = true): Promise<void> {
  const bytes = typeof body === 'string' ? Buffer.from(body) : body;
  const expected = await before_(bytes);
  const actual = now(bytes);
  if (actual === null) {
    assert.equal(fast, false, `left to the old path: ${bytes.toString().slice(0, 300)}`);
    return;
  }
  assert.notEqual(expected, 'refused', `taken although the old path refused it: ${bytes}`);
  assert.equal((expected as Serialised).statusCode, 200);
  assert.equal(actual, (expected as Serialised).body);
  assert.equal(fast, true, 'expected to be left to the old path');
}

const NOTE = {
  access_key: accessKey(77),
  issuer_name: 'Distribuidora "Sul" \\ Açaí',
  issuer_document: '12345678000199',
  total: '10.50',
  issued_at: '2026-01-10T13:00:00Z',
};

test('the simulator documents give the same bytes, compact and indented', async () => {
  for (const document of [
    buildProviderDocument(NOTE),
    buildProviderDocument({ ...NOTE, total: '24560.00', manifestation_type: null, version: 4 }),
    buildProviderDocument(NOTE, { summaryOnly: true }),
  ]) {
    await assertSame(JSON.stringify(document));
    await assertSame(JSON.stringify(document, null, 2));
    await assertSame(` \r\n\t${JSON.stringify(document, null, '\t')}\n `);
  }
});

const summary = `"nome_emitente":"Sul","documento_emitente":"01234567000189","valor_total":24560.00,
  "data_emissao":"2017-11-07T01:00:00-02:00","situacao":"autorizada","nfe_completa":true,"versao":4`;

test('numbers keep their text: big, exponents, negative zero, trailing zeros', async () => {
  const numbers = '12345678901234567890.12, 1e400, 1E-7, -0, 2.0000, -3.25e+2, 0.10000000000000000001, 7';
  await assertSame(`{${summary},"requisicao_nota_fiscal":{"valor_total":12345678901234567890.12,
    "valor_frete":1e400,"icms_valor_total":-0,"ibs_cbs_is_valor_total":12.3,"modelo":55,
    "volumes":[{"quantidade":2,"peso_bruto":13.250,"lacres":[[${numbers}]]}],
    "campo_futuro":[${numbers}],"grupo":{"n":1E+2,"m":[0,-1.5e-3]},
    "itens":[{"quantidade_comercial":1.0000,"valor_unitario_comercial":12.3456789012,"nves":[{"nve":7}],
      "campo_futuro_item":1.50,"outro":[${numbers}]}]},
    "protocolo_nota_fiscal":{"status":100,"ambiente":1,"versao":4.00},"extra_topo":10.50}`);
});

test('strings keep their characters: escapes, unicode, lone surrogates, separators', async () => {
  const texts = [
    '"aspas \\" e barra \\\\ e \\/ e \\b\\f\\n\\r\\t"',
    '"\\u00e9\\u00E9 \\ud83c\\udf55 \\ud800 sozinho \\udc00"',
    '"Açaí 🍕 \u2028\u2029 raw"',
    '"</script>"',
    '""',
  ];
  for (const text of texts) {
    await assertSame(`{${summary},"cnpj_destinatario":${text},"requisicao_nota_fiscal":{"natureza_operacao":${text},
      "observacoes_contribuinte":[{"campo":${text},"texto":${text}}],"campo_futuro":${text},
      "itens":[{"descricao":${text},"campo_futuro_item":{"t":${text}}}]},"protocolo_nota_fiscal":{"motivo":${text}}}`);
  }
});

test('nulls, booleans, empty and nested arrays and objects', async () => {
  await assertSame(`{${summary},"digest_value":null,"manifestacao_destinatario":null,"requisicao_nota_fiscal":{
    "indicador_intermediario":null,"reboques":[],"notas_referenciadas":[[[]],[{}],[null,true,false]],
    "pessoas_autorizadas":[{"cnpj":"00123456000191","ativo":true},{"cpf":null}],"consumidor_final":true,
    "modalidade_frete":false,"campo_futuro":{"a":{"b":{"c":[true,false,null,{}]}}},"vazio":{},
    "itens":[],"informacoes_adicionais_contribuinte":{"x":[1,true]}},"protocolo_nota_fiscal":{}}`);
  await assertSame(`{${summary},"requisicao_nota_fiscal":{"itens":null},"protocolo_nota_fiscal":null}`);
  await assertSame(`{${summary},"requisicao_nota_fiscal":null}`);
  await assertSame(`{${summary},"requisicao_nota_fiscal":{"items":[{"numero_item":"1"},{}]}}`);
  await assertSame(`{${summary},"requisicao_nota_fiscal":{}}`);
});

test('payments keep tipo_integracao as JSON, last; other payments are text', async () => {
  await assertSame(`{${summary},"requisicao_nota_fiscal":{"formas_pagamento":[
    {"tipo_integracao":2,"forma_pagamento":15,"valor_pagamento":300.00},
    {"forma_pagamento":"01","valor_pagamento":10.5},
    {"tipo_integracao":{"cnpj":1.0,"ok":true}},
    {},"texto",3.50,[1,{"tipo_integracao":1}],null,
    {"valor_pagamento":1.0,"tipo_integracao":null,"bandeira":"01"}]}}`);
  await assertSame(`{${summary},"requisicao_nota_fiscal":{"formas_pagamento":{"tipo_integracao":2}}}`);
  await assertSame(`{${summary},"requisicao_nota_fiscal":{"formas_pagamento":7.0}}`);
});

test('top-level fields no group names join the invoice additional fields after the document ones', async () => {
  await assertSame(`{"requisicao_carta_correcao":{"n":1.0},${summary},"requisicao_nota_fiscal":{"grupo":1,
    "itens":[{"numero_item":1}],"campo":"doc"},"campo":"topo","tipo_nfe":"1","carta_correcao":{"x":1},
    "outro_topo":[1.50],"protocolo_nota_fiscal":{"extra":1,"motivo":"ok"}}`);
  await assertSame(`{${summary},"extra_sem_invoice":1.50}`);
});

test('long invoice fields before and after the items give the same bytes', async () => {
  const long = `"${'observacao '.repeat(7000)}"`;
  await assertSame(`{${summary},"requisicao_nota_fiscal":{"informacoes_adicionais_contribuinte":${long},
    "itens":[{"numero_item":1},{"numero_item":2}],"campo_futuro":${long}},"protocolo_nota_fiscal":{"status":100}}`);
});

test('bodies the fast path leaves are left whole to the old path', async () => {
  const cases = [
    `{${summary},"requisicao_nota_fiscal":{"a":1,"a":2}}`,
    `{${summary},"requisicao_nota_fiscal":{"itens":[{"descricao":"x","descricao":"y"}]}}`,
    `{${summary},"requisicao_nota_fiscal":{"itens":[{"1":"a","b":2}]}}`,
    `{${summary},"requisicao_nota_fiscal":{"__proto__":{"x":1}}}`,
    `{${summary},"requisicao_nota_fiscal":{"chave\\u00e7":1,"linha\\u2028":2,"ção":3}}`,
    `{${summary},"requisicao_nota_fiscal":{"itens":[],"items":[]}}`,
    `{${summary},"requisicao_nota_fiscal":{"campo":${'['.repeat(80)}${']'.repeat(80)}}}`,
    `{${summary},"nome_emitente":"dup"}`,
    `\ufeff{${summary}}`,
  ];
  for (const body of cases) await assertSame(body, false);
  await assertSame(
    Buffer.concat([Buffer.from(`{${summary},"x":"`), Buffer.from([0xc3, 0x28]), Buffer.from('"}')]),
    false,
  );
});

test('bodies the old path refuses are never taken', async () => {
  for (const body of [
    '',
    '[]',
    '{}',
    `{${summary}`,
    `{${summary},}`,
    `{${summary}} x`,
    `{${summary},"x":01}`,
    `{${summary},"x":1.}`,
    `{${summary},"x":.5}`,
    `{${summary},"x":+1}`,
    `{${summary},"x":1e}`,
    `{${summary},"x":"\\x"}`,
    `{${summary},"x":"tab\there"}`,
    `{${summary},"x":tru}`,
    `{${summary},"x":[1,]}`,
    `{${summary},"x" 1}`,
    `{${summary},"requisicao_nota_fiscal":{"itens":[1]}}`,
    `{${summary},"requisicao_nota_fiscal":[]}`,
    `{${summary},"protocolo_nota_fiscal":"x"}`,
    `{${summary.replace('"autorizada"', '1')}}`,
  ]) {
    assert.equal(await before_(Buffer.from(body)), 'refused', body);
    assert.equal(now(Buffer.from(body)), null, body);
  }
});

// Generated documents: every named field and unknown ones, in any order, with any JSON values
// and spacing. Seeded, so a failure can be replayed.
function random(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * `sameShape`: the items of a document have the same keys in the same order (as real documents'
 * do), their values mostly of the same kind, so item-shape.ts matches most of them.
 */
function generator(seed: number, sameShape = false) {
  const next = random(seed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)];
  const space = () => (next() < 0.1 ? pick([' ', '\n', '\t', '\r\n  ']) : '');
  const STRINGS = ['"a"', '"0017"', '"Açaí"', '"\\"q\\""', '"\\u00e9"', '"\\ud83c\\udf55"', '"x\\ny"', '""'];
  const NUMBERS = ['0', '-0', '10.50', '12345678901234567890.12', '1e400', '1E-7', '2.0000', '-3.25e+2', '7'];
  const KEYS = ['a', 'nve', 'numero', 'valor', 'tipo_integracao', 'cnpj', 'campo_x'];
  const value = (depth: number): string => {
    const roll = next();
    if (roll < 0.35) return pick(STRINGS);
    if (roll < 0.6) return pick(NUMBERS);
    if (roll < 0.7) return pick(['true', 'false', 'null']);
    if (depth > 3) return pick(STRINGS);
    if (roll < 0.85) {
      const count = Math.floor(next() * 4);
      return `[${Array.from({ length: count }, () => space() + value(depth + 1) + space()).join(',')}]`;
    }
    return object([...new Set(Array.from({ length: Math.floor(next() * 4) }, () => pick(KEYS)))], () =>
      value(depth + 1),
    );
  };
  const object = (keys: string[], valueFor: (key: string) => string, spaced = true) => {
    const gap = () => (spaced ? space() : '');
    return `{${gap()}${keys.map((key) => `"${key}"${gap()}:${gap()}${valueFor(key)}${gap()}`).join(',')}}`;
  };
  const some = (names: string[], share: number) => names.filter(() => next() < share);
  const shuffled = (names: string[]) =>
    names
      .map((name) => ({ name, order: next() }))
      .sort((a, b) => a.order - b.order)
      .map(({ name }) => name);
  const named = (groups: Record<string, string[]>) => some(Object.values(groups).flat(), 0.4);
  const unknown = () => some(['campo_futuro', 'grupo_futuro', 'zz', 'A_b'], 0.4);
  const item = () => object(shuffled([...named(ITEM_GROUPS), ...unknown()]), () => value(0));
  // A value of the same kind as `model` (string, number, literal or container), or now and then any.
  const PLAIN = ['"a"', '"0017"', '"Açaí"', '""'];
  // A container without spaces, and the same container with other strings and numbers in it.
  const compact = (text: string) =>
    text.replace(/"(?:[^"\\]|\\.)*"|\s+/g, (t) => (t.startsWith('"') ? t : ''));
  const relike = (container: string) =>
    container.replace(/"(?:[^"\\]|\\.)*"(:?)|-?\d[\d.eE+-]*/g, (token, colon) =>
      colon ? token : token.startsWith('"') ? pick(PLAIN) : pick(NUMBERS),
    );
  const like = (model: string): string => {
    if (next() < 0.005) return value(0);
    if (STRINGS.includes(model)) return next() < 0.01 ? pick(STRINGS) : pick(PLAIN);
    if (NUMBERS.includes(model)) return pick(NUMBERS);
    // (Only without spaces: the keys are the strings a colon follows at once.)
    if (model === compact(model) && /^[[{]/.test(model)) return relike(model);
    return model;
  };
  const items = () => {
    if (!sameShape) return Array.from({ length: Math.floor(next() * 4) }, item);
    const keys = shuffled([...named(ITEM_GROUPS), ...unknown()]);
    const model = () => {
      const text = value(0);
      return next() < 0.97 ? compact(text) : text;
    };
    const models = new Map(keys.map((key) => [key, model()]));
    return Array.from({ length: 2 + Math.floor(next() * 6) }, () => {
      // Now and then a key more or less than the others.
      const own = next() < 0.1 ? keys.slice(1) : next() < 0.1 ? [...keys, 'zz_extra'] : keys;
      return object(own, (key) => like(models.get(key) ?? '1'), next() < 0.1);
    });
  };
  const payments = () =>
    `[${Array.from({ length: Math.floor(next() * 3) }, () =>
      object(shuffled(some(['forma_pagamento', 'valor_pagamento', 'tipo_integracao', 'bandeira'], 0.6)), () =>
        value(1),
      ),
    ).join(',')}]`;
  const document = () => {
    const keys = shuffled([...named(DOCUMENT_GROUPS), ...unknown(), ...(next() < 0.8 ? ['itens'] : [])]);
    return object(keys, (key) => {
      if (key === 'itens') return `[${items().join(`,${space()}`)}]`;
      if (key === 'formas_pagamento' && next() < 0.8) return payments();
      return value(0);
    });
  };
  return () => {
    const top = shuffled([
      'requisicao_nota_fiscal',
      'protocolo_nota_fiscal',
      ...some(['tipo_nfe', 'carta_correcao', 'campo_futuro', 'topo_extra', 'grupo_futuro'], 0.5),
    ]);
    const fields = top.map((key) => {
      if (key === 'requisicao_nota_fiscal') return `"${key}":${next() < 0.9 ? document() : 'null'}`;
      if (key === 'protocolo_nota_fiscal') {
        return `"${key}":${next() < 0.9 ? object(shuffled(some([...PROTOCOL_FIELDS, 'extra'], 0.6)), () => value(0)) : 'null'}`;
      }
      return `"${key}":${value(0)}`;
    });
    return `${space()}{${space()}${summary},${fields.join(`,${space()}`)}}${space()}`;
  };
}

test('generated documents give the same bytes', async () => {
  const generate = generator(20260110);
  for (let i = 0; i < 400; i++) await assertSame(generate());
});

test('documents whose items share a shape give the same bytes', async () => {
  const generate = generator(20261121, true);
  const before = ITEM_SHAPE.matched;
  for (let i = 0; i < 400; i++) await assertSame(generate());
  // Most items were written by the shape of the one before them, not the general way.
  assert.ok(ITEM_SHAPE.matched - before > 300, `${ITEM_SHAPE.matched - before} items matched a shape`);
});

const shapeItem = (n: string, description: string) =>
  `{"numero_item":${n},"descricao":${description},"cfop":5102,"nves":[{"nve":"AA"}],"campo_futuro":1.50}`;
const itemsDocument = (items: string[]) =>
  `{${summary},"requisicao_nota_fiscal":{"itens":[${items.join(',')}]}}`;

/** Checks the items' bytes against the old path; how many items a shape wrote. */
async function counted(items: string[]): Promise<number> {
  const before = ITEM_SHAPE.matched;
  await assertSame(itemsDocument(items));
  return ITEM_SHAPE.matched - before;
}

test('items that share a shape are written by it; the others the general way', async () => {
  const item = shapeItem;
  assert.equal(await counted([item('1', '"a"'), item('2', '"b"'), item('3', '"c"')]), 2);
  // Another kind, an escape, a space, a key more: each of those items is read the general way.
  assert.equal(await counted([item('1', '"a"'), item('2', '7'), item('3', '"c"')]), 0);
  // An item with an escape is read the general way; the shape before it stays for the next.
  assert.equal(await counted([item('1', '"a"'), item('2', '"\\\\"'), item('3', '"c"')]), 1);
  const escaped = (n: string) => item(n, '"Arroz \\u0026 Feij\\u00e3o"');
  assert.equal(
    await counted([
      item('1', '"a"'),
      item('2', '"b"'),
      escaped('3'),
      item('4', '"c"'),
      escaped('5'),
      item('6', '"d"'),
    ]),
    3,
  );
  assert.equal(await counted([item('1', '"a"'), item('2', ' "b"'), item('3', '"c"')]), 0);
  assert.equal(
    await counted([item('1', '"a"'), `${item('2', '"b"').slice(0, -1)},"z":1}`, item('3', '"c"')]),
    0,
  );
  // Containers: other values in the same brackets match; another bracket or key does not.
  const nves = (n: string, list: string) => item(n, '"a"').replace('[{"nve":"AA"}]', list);
  assert.equal(
    await counted([nves('1', '[{"nve":"AA"}]'), nves('2', '[{"nve":"BB"}]'), nves('3', '[{"nve":7}]')]),
    1,
  );
  assert.equal(
    await counted([nves('1', '[{"nve":1.5}]'), nves('2', '[{"nve":2.50}]'), nves('3', '[{"nve":true}]')]),
    1,
  );
  assert.equal(await counted([nves('1', '[{"nve":"A"}]'), nves('2', '[{"nve":"A"},{"nve":"B"}]')]), 0);
  assert.equal(await counted([nves('1', '[{"nve":"A"}]'), nves('2', '[{"nv":"A"}]'), nves('3', '[[]]')]), 0);
  assert.equal(await counted([nves('1', '[[],{},null,false]'), nves('2', '[[],{},null,false]')]), 1);
});

// The shape's loop runs in WebAssembly sixteen bytes at a time (item-match.wat): strings, keys
// and bodies that end on either side of those steps, and what it must refuse anywhere in them.
test('the items loop around its sixteen-byte steps: strings and keys of every length', async () => {
  for (let length = 0; length <= 50; length++) {
    const text = (c: string) => `"${'x'.repeat(Math.max(0, length - 1))}${length ? c : ''}"`;
    assert.equal(
      await counted([shapeItem('1', text('a')), shapeItem('2', text('b')), shapeItem('3', text('é'))]),
      2,
    );
    const keyed = (n: string, last: string) =>
      shapeItem(n, '"a"').replace('"cfop"', `"k${'k'.repeat(length)}${last}"`);
    assert.equal(await counted([keyed('1', 'a'), keyed('2', 'a'), keyed('3', 'b'), keyed('4', 'b')]), 2);
  }
});

test('the items loop refuses control characters and leaves escapes anywhere in a string', async () => {
  const long = (at: number, c: string) => `"${'y'.repeat(at)}${c}${'z'.repeat(40 - at)}"`;
  for (let at = 0; at <= 40; at++) {
    const items = (c: string) => [
      shapeItem('1', long(20, 'a')),
      shapeItem('2', long(3, 'b')),
      shapeItem('3', long(at, c)),
    ];
    for (const control of ['\u0000', '\u0001', '\t', '\n', '\u001f']) {
      const body = Buffer.from(itemsDocument(items(control)));
      assert.equal(await before_(body), 'refused');
      assert.equal(now(body), null, `a raw ${JSON.stringify(control)} at ${at} was taken`);
    }
    assert.equal(await counted(items('\\"')), 1);
    assert.equal(await counted(items('\\u00e9')), 1);
    assert.equal(await counted(items('\x7f')), 2);
  }
});

test('the items loop: numbers and literals as JSON writes them, and nothing else', async () => {
  const numbers = ['0', '-0', '7', '10.50', '-3.25e+2', '1E-7', '2e10', '12345678901234567890.12'];
  for (const number of numbers) {
    assert.equal(await counted([shapeItem('1', '"a"'), shapeItem(number, '"b"'), shapeItem('3', '"c"')]), 2);
  }
  for (const invalid of ['01', '1.', '.5', '+1', '1e', '1e+', '-', '1.e5']) {
    const body = Buffer.from(
      itemsDocument([shapeItem('1', '"a"'), shapeItem('2', '"b"'), shapeItem(invalid, '"c"')]),
    );
    assert.equal(await before_(body), 'refused', invalid);
    assert.equal(now(body), null, invalid);
  }
  for (const [literal, other] of [
    ['true', 'false'],
    ['false', 'null'],
    ['null', 'true'],
  ]) {
    assert.equal(await counted([shapeItem('1', literal), shapeItem('2', literal), shapeItem('3', other)]), 1);
    for (const invalid of [literal.slice(0, -1), `${literal.slice(0, -1)}x`, literal.toUpperCase()]) {
      const body = Buffer.from(
        itemsDocument([shapeItem('1', literal), shapeItem('2', literal), shapeItem('3', invalid)]),
      );
      assert.equal(now(body), null, invalid);
    }
  }
});

test('the items loop never reads past the body: every cut of the last items is refused', async () => {
  for (const values of [
    ['"a"', '"b"', '"ccccccccccccccccccccc"'],
    ['true', 'true', 'true'],
    ['false', 'false', 'false'],
    ['null', 'null', 'null'],
    ['1', '-22', '3.33e+3'],
  ]) {
    const items = values.map((value, k) => shapeItem(String(k + 1), value).replace('1.50', value));
    const body = Buffer.from(itemsDocument(items));
    assert.equal(await counted(items), 2);
    // Cut out of a larger buffer, longest first: the bytes after the cut are still in memory, and
    // in the WebAssembly memory the copy of the cut before.
    // Items 2 and 3 end here; one is matched only when the cut leaves a byte after it.
    const ends = [2, 3].map((n) => body.indexOf(items[n - 1]) + items[n - 1].length);
    for (let cut = body.length - 1; cut >= body.indexOf('{"numero_item":2'); cut--) {
      const before = ITEM_SHAPE.matched;
      assert.equal(now(body.subarray(0, cut)), null, `cut at ${cut}`);
      const whole = ends.filter((end) => end < cut).length;
      assert.equal(ITEM_SHAPE.matched - before, whole, `cut at ${cut}: items matched`);
    }
  }
});

test('items written longer than read, many of them, and shapes too large to be matched', async () => {
  // Each small item grows about tenfold when written: the loop stops when its output is full and
  // goes on from there.
  const tiny = Array.from({ length: 20_000 }, (_, k) => `{"numero_item":${k + 1},"cfop":${k % 7}}`);
  assert.equal(await counted(tiny), tiny.length - 1);
  const wide = (n: string) =>
    `{"numero_item":${n},${Array.from({ length: 300 }, (_, k) => `"campo_${'x'.repeat(60)}_${k}":${k}`).join(',')}}`;
  assert.equal(await counted([wide('1'), wide('2'), wide('3')]), 0);
});

test('corrupted documents are refused, left to the old path, or give the same bytes', async () => {
  for (const generate of [generator(4471), generator(1121, true)]) await corrupting(generate);
});

async function corrupting(generate: () => string): Promise<void> {
  const next = random(99);
  let taken = 0;
  for (let i = 0; i < 400; i++) {
    const body = Buffer.from(generate());
    const at = Math.floor(next() * body.length);
    const corrupted = Buffer.concat([
      body.subarray(0, at),
      Buffer.from([Math.floor(next() * 128)]),
      body.subarray(at + 1),
    ]);
    const expected = await before_(corrupted);
    const actual = now(corrupted);
    if (actual === null) continue;
    taken++;
    assert.notEqual(expected, 'refused', corrupted.toString());
    assert.equal(actual, (expected as Serialised).body);
  }
  assert.ok(taken > 50, `only ${taken} corrupted documents were still taken`);
}

test('a head longer than the room left before the document is joined: the same bytes, the transcoded buffer freed', async () => {
  const document = buildProviderDocument(NOTE) as { requisicao_nota_fiscal: { itens: object[] } };
  const invoice = document.requisicao_nota_fiscal;
  // 400 items: a transcoded buffer over release-buffer.ts's 128 KiB.
  invoice.itens = Array.from({ length: 400 }, (_, i) => ({
    ...invoice.itens[0],
    numero_item: String(i + 1),
  }));
  const body = Buffer.from(JSON.stringify({ ...document, nome_emitente: 'Sul'.repeat(50_000) }));
  await assertSame(body);
  const transcoded = transcodeProviderBody(body);
  assert.ok(transcoded);
  assert.ok(transcoded.body.length >= 128 * 1024, 'large enough to be freed');
  const provider = {
    summary: mapProviderSummary(transcoded.summary),
    recipient: mapProviderRecipient(transcoded.summary),
  };
  const answer = receivedNfeDetailBody(local, provider, transcoded, extras);
  assert.ok(answer.length > 150_000);
  assert.equal(
    (transcoded.body.buffer as ArrayBuffer).detached,
    true,
    'joined into a new buffer, the old one freed',
  );
});
