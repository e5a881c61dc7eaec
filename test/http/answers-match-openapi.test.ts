// Every operation's answers, successes and documented errors, validated against the response
// schema that the served /openapi.json gives for that operation and status. Many bodies are
// rendered ahead as JSON bytes (menu, listing, product writes, cash flows, NF-e, events), so the
// schemas only document them: this is what holds a generated client's types to what is sent.
// Strict as a generated client is: the status and media type are ones the operation lists; types,
// required members, nullability, enums, formats, and no member that an object schema with
// `properties` does not declare. The world is the demo data set through the importer, plus
// credentials, a brand without a fiscal token, edge products and notes, and a fiscal simulator.
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import type { ErrorObject } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { sql } from 'kysely';
import { startFiscalSimulator } from '../../src/fiscal-simulator/fiscal-simulator.ts';
import {
  buildProviderDocument,
  type ProviderDocument,
} from '../../src/fiscal-simulator/simulator-documents.ts';
import { importData } from '../../src/import/import.ts';
import { DOCUMENT_GROUPS, ITEM_GROUPS, PROTOCOL_FIELDS } from '../../src/modules/nfe/provider-fields.ts';
import { createWebhookWorker } from '../../src/modules/webhooks/worker.ts';
import { buildTestApp } from '../support/app.ts';
import { ALL_SCOPES, feedSettled } from '../support/events-world.ts';
import { accessKey, every, PROVIDER_SUMMARY } from '../support/nfe-world.ts';
import { startReceiver } from '../support/receiver.ts';
import { bearerFor, sessionFor } from '../support/tokens.ts';

const DEMO = JSON.parse(readFileSync(new URL('../../examples/demo.json', import.meta.url), 'utf8'));
/**
 * Provider documents at the edges: every JSON spelling of numbers, escapes, literals and unnamed
 * fields (detail-answers.json), and every text field empty, absent or null.
 */
const EDGE_DOCUMENTS: (string | ProviderDocument)[] = [
  ...JSON.parse(readFileSync(new URL('../modules/nfe/detail-answers.json', import.meta.url), 'utf8')).map(
    (answer: { provider_body: string }) => answer.provider_body,
  ),
  ...['', null].map((value) => ({
    ...PROVIDER_SUMMARY,
    ...every(['cnpj_destinatario', 'cpf_destinatario', 'digest_value', 'manifestacao_destinatario'], value),
    requisicao_nota_fiscal: {
      ...every(Object.values(DOCUMENT_GROUPS).flat(), value),
      itens: [every(Object.values(ITEM_GROUPS).flat(), value)],
    },
    protocolo_nota_fiscal: every(PROTOCOL_FIELDS, value),
  })),
  { ...PROVIDER_SUMMARY, requisicao_nota_fiscal: { itens: [{}] }, protocolo_nota_fiscal: {} },
];
const EDGE_NOTES = EDGE_DOCUMENTS.map((_, i) => 7950 + i);
const REDIRECT = 'https://pos.example/callback';
const FULL_FISCAL = {
  ncm: '02109900',
  cfop: '5102',
  csosn: '0102',
  cst: '00',
  cest: '0100100',
  icms_origem: '0',
  aliquota: '18,00',
  base_calculo: '',
  pis: '01',
  cofins: '01',
  pis_aliquota: '0.65',
  cofins_aliquota: '3.00',
  icms_modalidade_base_calculo: '3',
  icms_aliquota: '18.00',
  icms_valor: '',
  cbenef: 'SP070001',
  fcp_percentual: '2',
  icms_base_calculo_retido_st: '10.00',
  icms_aliquota_final: '18.00',
  icms_valor_retido_st: '1.80',
  icms_valor_substituto: '0.50',
  icms_reducao_base_calculo: '0',
  icms_motivo_desoneracao: '9',
  icms_valor_desonerado: '0.00',
  icms_aliquota_credito_simples: '1.25',
  icms_valor_credito_simples: '0.12',
  ibs_cbs_situacao_tributaria: '000',
  ibs_cbs_classificacao_tributaria: '000001',
  icms_modalidade_base_calculo_st: '4',
  icms_margem_valor_adicionado_st: '35.00',
  icms_reducao_base_calculo_st: '0',
  icms_aliquota_st: '18.00',
};

/** What the demo data set lacks: credentials, a brand without a fiscal token, odd notes and products. */
function extraWorld() {
  const note = (id: number, number: number, values: Record<string, unknown>) => ({
    id,
    restaurant_id: 1,
    access_key: accessKey(number, { cnpj: '06789012000123' }),
    issuer_name: 'Frigorífico Boi Bom',
    issuer_document: '06789012000123',
    total: '1234.56',
    situation: 'autorizada',
    issued_at: '2026-03-05T12:00:00Z',
    ...values,
  });
  return {
    brands: [{ id: 12, restaurant_id: 1, name: 'Sem token', fiscal_token: null }],
    products: [
      {
        id: 1901,
        restaurant_id: 1,
        product_category_id: 101,
        name: 'Fiscal completa',
        price: 10,
        price_promotion: 0,
        delivery_price: 0,
        delivery_price_promotion: 9.5,
        fiscal: FULL_FISCAL,
        fiscal_group_id: 7,
        complement_category_ids: [300],
      },
      { id: 1902, restaurant_id: 1, product_category_id: 101, name: 'Sem fiscal', price: 12.3 },
    ],
    nfe_received: [
      note(7901, 901, {
        brand_id: null,
        series: '1',
        state: 'SP',
        type: '1',
        complete: true,
        manifestation_type: 'confirmacao',
        manifested_at: '2026-03-06T10:00:00Z',
        correction_number: 2,
        correction_text: 'Corrige o endereço',
        correction_issued_at: '2026-03-07T10:00:00-03:00',
        locally_canceled_at: null,
        cancellation_reason: null,
        return_reference: 'RET-77',
        reference: 'REF-77',
        url: 'https://files.example/nfe/7901.xml',
        provider_id: 55,
        version: 3,
        digest: 'abc=',
        sped: { registro: 'C100', itens: [1, 2.5, null, { x: 'y' }] },
        processing_at: '2026-03-05T12:10:00Z',
      }),
      note(7902, 902, { brand_id: 10, situation: 'processando_autorizacao', return_reference: 'RET-77' }),
      note(7903, 903, { brand_id: 12, manifestation_type: 'confirmacao' }),
      note(7904, 904, { brand_id: 10, manifestation_type: 'confirmacao' }),
      note(7905, 905, { brand_id: 11, manifestation_type: 'desconhecimento' }),
      ...EDGE_NOTES.map((id, i) => note(id, 950 + i, { brand_id: 10, manifestation_type: 'confirmacao' })),
    ],
    api_keys: [
      { id: 900, key: 'ck_test_openapi_all', name: 'All', restaurant_ids: [1], scopes: ALL_SCOPES },
      { id: 901, key: 'ck_live_openapi_partner', restaurant_ids: [1, 2], scopes: ALL_SCOPES },
    ],
    oauth_clients: [
      {
        client_id: 'openapi-service',
        client_secret: 'openapi-service-secret',
        name: 'Service',
        restaurant_ids: [1],
        scopes: ['menu:read', 'products:read'],
        grant_types: ['client_credentials'],
      },
      {
        client_id: 'openapi-app',
        name: 'Installed app',
        restaurant_ids: [1, 2],
        scopes: ['menu:read', 'webhooks:read'],
        redirect_uris: [REDIRECT],
        grant_types: ['authorization_code'],
      },
    ],
  };
}

/** Provider documents of some notes: full, summary only, and none (the provider's 404). */
function providerDocuments(file: Record<string, any[]>): Map<string, ProviderDocument | string> {
  const notes = file.nfe_received;
  const documents = new Map<string, ProviderDocument | string>();
  notes.forEach((note, i) => {
    if (note.id === 7904) return;
    const edge = EDGE_NOTES.indexOf(note.id);
    if (edge >= 0) documents.set(note.access_key, EDGE_DOCUMENTS[edge]);
    else documents.set(note.access_key, buildProviderDocument(note, { summaryOnly: i % 3 === 1 }));
  });
  return documents;
}

// ---- The validator: the served document's schemas, compiled by Ajv for JSON Schema 2020-12 ----

const CLOSED = 'https://comanda.test/closed/';
const OPEN = 'https://comanda.test/open/';

/**
 * A copy of `schema` in which every object schema with `properties` (or an `allOf`) that says
 * nothing of other members refuses them (`unevaluatedProperties: false`). An allOf member is left
 * open (its container is closed, and sees the members' properties), so a member $ref goes to the
 * open copy of its component.
 */
function closeObjects(schema: any, allOfMember = false): any {
  if (Array.isArray(schema)) return schema.map((s) => closeObjects(s));
  if (!schema || typeof schema !== 'object') return schema;
  const out: any = {};
  for (const [key, value] of Object.entries<any>(schema)) {
    if (key === '$ref') out.$ref = value.replace('#/components/schemas/', allOfMember ? OPEN : CLOSED);
    else if (key === 'allOf') out.allOf = value.map((s: any) => closeObjects(s, true));
    else if (key === 'properties' || key === 'patternProperties' || key === '$defs') {
      out[key] = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, closeObjects(v)]));
    } else if (['enum', 'const', 'examples', 'default', 'required', 'type'].includes(key)) out[key] = value;
    else out[key] = closeObjects(value);
  }
  const says = ['additionalProperties', 'unevaluatedProperties', 'patternProperties'].some(
    (k) => k in schema,
  );
  if (!says && !allOfMember && (schema.properties || schema.allOf)) {
    out.type ??= 'object';
    out.unevaluatedProperties = false;
  }
  return out;
}

type Answer = Pick<LightMyRequestResponse, 'statusCode' | 'headers' | 'body'>;

function answerChecker(doc: any) {
  const ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true });
  (addFormats as unknown as (a: Ajv2020) => void)(ajv);
  for (const [name, schema] of Object.entries<any>(doc.components.schemas)) {
    ajv.addSchema(closeObjects(schema), `${CLOSED}${name}`);
    ajv.addSchema(closeObjects(schema, true), `${OPEN}${name}`);
  }
  const compiled = new Map<string, ReturnType<typeof ajv.compile>>();
  /** The problems of one answer of the operation `where` ('get /v1/menu'); none when it matches. */
  return (where: string, res: Answer): string[] => {
    const [method, path] = where.split(' ');
    const operation = doc.paths[path]?.[method];
    if (!operation) return [`${where} is not in the document`];
    const status = String(res.statusCode);
    const response = operation.responses[status] ?? operation.responses.default;
    if (!response) {
      const listed = Object.keys(operation.responses).join(', ');
      return [`answered ${status}, which the document does not list (${listed}): ${res.body.slice(0, 200)}`];
    }
    if (!response.content) return res.body === '' ? [] : [`answered a body where ${status} has none`];
    const type = String(res.headers['content-type'] ?? '').split(';')[0];
    const media = response.content[type];
    if (!media) return [`answered ${type}, documented: ${Object.keys(response.content).join(', ')}`];
    if (type !== 'application/json') return [];
    const key = `${where} ${status}`;
    let validate = compiled.get(key);
    if (!validate) {
      validate = ajv.compile(closeObjects(media.schema));
      compiled.set(key, validate);
    }
    const body = JSON.parse(res.body);
    if (validate(body)) return [];
    return (validate.errors ?? []).map((e: ErrorObject) => {
      let value: unknown = body;
      for (const part of e.instancePath.split('/').slice(1)) value = (value as any)?.[part];
      const shown = JSON.stringify(value)?.slice(0, 120);
      return `${status} ${e.instancePath || '/'} ${e.message} ${JSON.stringify(e.params)} (sent ${shown})`;
    });
  };
}

test('every operation answers what its response schema in /openapi.json says', async (t) => {
  const documents = new Map<string, ProviderDocument | string>();
  const simulator = await startFiscalSimulator({
    notes: documents,
    tokens: new Set(DEMO.brands.map((brand: any) => brand.fiscal_token)),
    requestsPerMinute: 100_000,
  });
  t.after(() => simulator.close());
  const receiver = await startReceiver(t);
  receiver.respond = (req, res) =>
    req.url === '/failing' ? res.writeHead(500).end('{"error":"down"}') : res.writeHead(204).end();
  const config = {
    fiscalProviderUrl: simulator.url,
    webhookAllowPrivate: true,
    rateLimitPerMinute: 1_000_000,
    tokenRateLimitPerMinute: 1_000_000,
  };
  const { app, ctx, database } = await buildTestApp(t, { config });
  const { db, secrets } = ctx;
  const extra = extraWorld();
  await importData(db, DEMO, { fiscalTokenKey: secrets.fiscalTokenKey });
  await importData(db, extra, { fiscalTokenKey: secrets.fiscalTokenKey });
  for (const [key, document] of providerDocuments({
    nfe_received: [...DEMO.nfe_received, ...extra.nfe_received],
  })) {
    documents.set(key, document);
  }

  const doc = (await app.inject('/openapi.json')).json();
  const check = answerChecker(doc);
  const answered = new Map<string, Set<number>>();
  const all = (await bearerFor(db, [1], ALL_SCOPES, 'all scopes')).authorization;
  const partner = (await bearerFor(db, [1, 2], ALL_SCOPES, 'partner')).authorization;
  const menuOnly = (await bearerFor(db, [1], ['menu:read'], 'menu only')).authorization;
  const session = sessionFor(1, secrets.sessionSecret).authorization;

  type Call = {
    method?: string;
    url: string;
    /** The Authorization header; null sends none. */
    auth?: string | null;
    payload?: unknown;
    headers?: object;
    /** Another app on the same database. */
    on?: FastifyInstance;
  };
  /** Calls the operation `where` ('get /v1/menu') and collects the problems of its answer. */
  function caller(problems: string[]) {
    return async (where: string, call: Call, expected?: number) => {
      const { method = where.split(' ')[0].toUpperCase(), url, auth = all, payload, headers } = call;
      const res = await (call.on ?? app).inject({
        method: method as never,
        url,
        payload: payload as never,
        headers: { ...(auth ? { authorization: auth } : {}), ...headers },
      });
      if (expected !== undefined && res.statusCode !== expected) {
        problems.push(
          `${method} ${url}: expected ${expected}, got ${res.statusCode} ${res.body.slice(0, 300)}`,
        );
      }
      for (const problem of check(where, res)) problems.push(`${method} ${url}: ${problem}`);
      answered.set(where, (answered.get(where) ?? new Set()).add(res.statusCode));
      return res;
    };
  }
  /** A subtest whose calls' problems are all reported at its end. */
  const group = (name: string, body: (call: ReturnType<typeof caller>) => Promise<void>) =>
    t.test(name, async () => {
      const problems: string[] = [];
      await body(caller(problems));
      assert.deepEqual(problems, []);
    });

  await group(
    'the menu: both channels, filters, fiscal, search, an instant, cold and cached',
    async (call) => {
      const where = 'get /v1/menu';
      for (const query of [
        '',
        '',
        'channel=delivery',
        'channel=delivery&only_available=true',
        'channel=in_store&only_available=true&include_fiscal_info=true',
        'include_fiscal_info=true',
        'include_fiscal_info=true',
        'search=pizza',
        'search=zzzz-nothing',
        'category_id=101',
        'at=2026-03-06T23:30:00-03:00&only_available=true',
        'at=2026-03-08T10:00:00Z&channel=delivery',
      ]) {
        await call(where, { url: `/v1/menu?${query}` }, 200);
      }
      await call(where, { url: '/v1/menu?restaurant_id=2&channel=delivery', auth: partner }, 200);
      await call(where, { url: '/v1/menu', auth: session }, 200);
      await call(where, { url: '/v1/menu?channel=pickup' }, 400);
      await call(where, { url: '/v1/menu?at=yesterday' }, 400);
      await call(where, { url: '/v1/menu', auth: partner }, 400);
      await call(where, { url: '/v1/menu', auth: null }, 401);
      await call(where, { url: '/v1/menu', auth: 'Bearer cat_unknownunknownunknownunknown' }, 401);
      await call(where, { url: '/v1/products', auth: menuOnly }, 403);
      await call(where, { url: '/v1/menu?restaurant_id=2' }, 403);
    },
  );

  await group('the product listing and single products, with and without fiscal', async (call) => {
    for (const auth of [all, all, session])
      await call('get /v1/products', { url: '/v1/products', auth }, 200);
    await call('get /v1/products', { url: '/v1/products?restaurant_id=2', auth: partner }, 200);
    await call('get /v1/products', { url: '/v1/products', auth: menuOnly }, 403);
    for (const id of [
      1001,
      1002,
      1901,
      1902,
      ...DEMO.products.filter((p: any) => p.is_combo && p.restaurant_id === 1).map((p: any) => p.id),
    ]) {
      await call('get /v1/products/{productId}', { url: `/v1/products/${id}` }, 200);
      await call('get /v1/products/{productId}', { url: `/v1/products/${id}` }, 200);
    }
    await call('get /v1/products/{productId}', { url: '/v1/products/999999' }, 404);
    await call('get /v1/products/{productId}', { url: '/v1/products/abc' }, 400);
  });

  await group('product writes: create, edit, bulk, dry runs, availability, replays, errors', async (call) => {
    const created = await call(
      'post /v1/products',
      { url: '/v1/products', payload: { name: 'Nova', product_category_id: 101, price: 19.9 } },
      201,
    );
    const id = created.json().id;
    const full = {
      name: ' Completa ',
      product_category_id: 101,
      description: 'Tudo',
      price: 30,
      price_promotion: 0,
      delivery_price: 35.5,
      delivery_price_promotion: null,
      available: false,
      available_in_delivery: true,
      sold_off: true,
      use_weight: true,
      has_starting_price: true,
      charge_service_tax: false,
    };
    const key = { 'idempotency-key': 'openapi-create-1' };
    await call('post /v1/products', { url: '/v1/products', payload: full, headers: key }, 201);
    await call('post /v1/products', { url: '/v1/products', payload: full, headers: key }, 201);
    await call(
      'post /v1/products',
      { url: '/v1/products', payload: { ...full, price: 31 }, headers: key },
      422,
    );
    await call('post /v1/products', { url: '/v1/products', payload: { name: 'x', price: 1 } }, 400);
    await call(
      'post /v1/products',
      { url: '/v1/products', payload: { ...full, product_category_id: 201 } },
      404,
    );
    await call(
      'post /v1/products',
      {
        url: '/v1/products',
        payload: 'x'.repeat(1_100_000),
        headers: { 'content-type': 'application/json' },
      },
      413,
    );

    const edit = 'put /v1/products/{productId}';
    const fiscal_info = { ncm: '21069090', cest: null, aliquota: '' };
    await call(edit, { url: `/v1/products/${id}`, payload: { price: 20.5, fiscal_info } }, 200);
    await call(
      edit,
      { url: `/v1/products/${id}?dry_run=true`, payload: { price: 21, fiscal_info: { cfop: '5405' } } },
      200,
    );
    await call(edit, { url: `/v1/products/1901?dry_run=true`, payload: { name: 'Fiscal completa' } }, 200);
    const current = (await app.inject({ url: `/v1/products/${id}`, headers: { authorization: all } })).json();
    await call(
      edit,
      { url: `/v1/products/${id}`, payload: { name: 'x', expected_updated_at: '2020-01-01T00:00:00.000Z' } },
      409,
    );
    await call(
      edit,
      {
        url: `/v1/products/${id}?dry_run=true`,
        payload: { name: 'x', expected_updated_at: '2020-01-01T00:00:00.000Z' },
      },
      409,
    );
    await call(
      edit,
      { url: `/v1/products/${id}`, payload: { expected_updated_at: current.updated_at } },
      400,
    );
    await call(edit, { url: `/v1/products/${id}`, payload: { price: 1.001 } }, 400);
    await call(edit, { url: '/v1/products/999999', payload: { price: 1 } }, 404);
    await call(edit, { url: `/v1/products/${id}`, payload: { product_category_id: 999999 } }, 404);
    await call(edit, { url: `/v1/products/${id}`, payload: { price: 1 }, auth: menuOnly }, 403);
    await call(
      edit,
      { url: `/v1/products/${id}`, payload: { price: 1 }, headers: { 'idempotency-key': '' } },
      400,
    );

    const bulk = 'put /v1/products/bulk';
    const items = [
      { id, price: 22, sold_off: false },
      { id: 1901, fiscal_info: { ncm: null }, description: null },
      { id: 1002, price_promotion: null, expected_updated_at: undefined },
    ];
    await call(bulk, { url: '/v1/products/bulk?dry_run=true', payload: items }, 200);
    await call(
      bulk,
      { url: '/v1/products/bulk', payload: items, headers: { 'idempotency-key': 'openapi-bulk' } },
      200,
    );
    await call(
      bulk,
      { url: '/v1/products/bulk', payload: items, headers: { 'idempotency-key': 'openapi-bulk' } },
      200,
    );
    await call(
      bulk,
      {
        url: '/v1/products/bulk',
        payload: [
          { id, name: 'a' },
          { id, price: 2 },
        ],
      },
      400,
    );
    await call(bulk, { url: '/v1/products/bulk', payload: [{ id }] }, 400);
    await call(bulk, { url: '/v1/products/bulk', payload: [{ id: 999999, price: 2 }] }, 404);
    await call(
      bulk,
      {
        url: '/v1/products/bulk',
        payload: [
          { id, name: 'b', expected_updated_at: '2020-01-01T00:00:00.000Z' },
          { id: 1901, name: 'c', expected_updated_at: '2020-01-01T00:00:00.000Z' },
        ],
      },
      409,
    );
    await call(
      bulk,
      {
        url: '/v1/products/bulk?dry_run=true',
        payload: [{ id, name: 'b', expected_updated_at: '2020-01-01T00:00:00.000Z' }],
      },
      409,
    );

    const availability = 'patch /v1/products/{productId}/availability';
    await call(availability, { url: `/v1/products/${id}/availability`, payload: { available: true } }, 200);
    const keyedPatch = {
      url: '/v1/products/1901/availability',
      payload: { available_in_delivery: false },
      headers: { 'idempotency-key': 'openapi-patch' },
    };
    // The write, then its replay from the stored answer.
    for (const _ of [1, 2]) await call(availability, keyedPatch, 200);
    await call(availability, { url: `/v1/products/${id}/availability`, payload: { sold_off: true } }, 400);
    await call(availability, { url: `/v1/products/${id}/availability`, payload: {} }, 400);
    await call(availability, { url: '/v1/products/999999/availability', payload: { available: true } }, 404);

    await call(
      edit,
      { url: `/v1/products/${id}`, payload: { description: 'Pela sessão' }, auth: session },
      200,
    );
    const history = 'get /v1/products/{productId}/history';
    for (const product of [id, 1901, 1001])
      await call(history, { url: `/v1/products/${product}/history` }, 200);
    await call(history, { url: `/v1/products/${id}/history`, auth: session }, 200);
    await call(history, { url: '/v1/products/999999/history' }, 404);
    // the reads again, after the writes moved the catalog version
    await call('get /v1/products', { url: '/v1/products' }, 200);
    await call('get /v1/menu', { url: '/v1/menu?include_fiscal_info=true&channel=delivery' }, 200);
  });

  await group('cash flows: both date types, filters, pages, errors', async (call) => {
    const where = 'get /v1/financial/cash-flows';
    for (const query of [
      'start_date=2026-02-01&end_date=2026-04-30',
      'start_date=2026-02-01&end_date=2026-04-30',
      'start_date=2026-02-01&end_date=2026-04-30&offset=100',
      'start_date=2026-03-01&end_date=2026-03-31&date_type=competence_date',
      'start_date=2026-03-01&end_date=2026-03-31&paid=true&is_earning=false',
      'start_date=2026-03-01&end_date=2026-03-31&paid=false&is_earning=true&provider_id=55',
      'start_date=2026-03-01&end_date=2026-03-31&bank_account_id=70&payment_method_id=80',
      'start_date=2026-03-01&end_date=2026-03-31&category_subcategory_id=90',
      'start_date=2020-01-01&end_date=2020-01-31',
    ]) {
      await call(where, { url: `/v1/financial/cash-flows?${query}` }, 200);
    }
    await call(
      where,
      {
        url: '/v1/financial/cash-flows?start_date=2026-03-01&end_date=2026-03-31&restaurant_id=2',
        auth: partner,
      },
      200,
    );
    await call(where, { url: '/v1/financial/cash-flows?start_date=2026-01-01&end_date=2026-06-30' }, 400);
    await call(where, { url: '/v1/financial/cash-flows' }, 400);
    await call(
      where,
      { url: '/v1/financial/cash-flows?start_date=2026-03-01&end_date=2026-03-31', auth: menuOnly },
      403,
    );
    await call(
      where,
      { url: '/v1/financial/cash-flows?start_date=2026-03-01&end_date=2026-03-31', auth: null },
      401,
    );
  });

  await group('brands, the NF-e list and the NF-e detail, with and without brand', async (call) => {
    await call('get /v1/brands', { url: '/v1/brands' }, 200);
    await call('get /v1/brands', { url: '/v1/brands?restaurant_id=2', auth: partner }, 200);
    const list = 'get /v1/nfe-received';
    const period = 'start_date=2026-02-01T00:00:00Z&end_date=2026-05-01T00:00:00Z';
    for (const query of [
      period,
      period,
      `${period}&pendente=true`,
      `${period}&brand_id=11`,
      `${period}&brand_id=12&pendente=true`,
    ]) {
      await call(list, { url: `/v1/nfe-received?${query}` }, 200);
    }
    await call(list, { url: `/v1/nfe-received?${period}&restaurant_id=2`, auth: partner }, 200);
    await call(list, { url: `/v1/nfe-received?${period}&brand_id=20` }, 404);
    await call(list, { url: '/v1/nfe-received?start_date=2026-02-01T00:00:00Z' }, 400);
    await call(list, { url: `/v1/nfe-received?${period}&pendente=maybe` }, 400);

    const detail = 'get /v1/nfe-received/info/{nfe_received_id}';
    const listed = DEMO.nfe_received
      .filter((n: any) => n.restaurant_id === 1)
      .slice(0, 6)
      .map((n: any) => n.id);
    for (const id of [...listed, 7901, 7905, ...EDGE_NOTES])
      await call(detail, { url: `/v1/nfe-received/info/${id}` }, 200);
    const other = DEMO.nfe_received.find((n: any) => n.restaurant_id === 2).id;
    await call(detail, { url: `/v1/nfe-received/info/${other}?restaurant_id=2`, auth: partner }, 200);
    await call(detail, { url: '/v1/nfe-received/info/7904' }, 502);
    await call(detail, { url: '/v1/nfe-received/info/7903' }, 503);
    await call(detail, { url: `/v1/nfe-received/info/${other}` }, 404);
    await call(detail, { url: '/v1/nfe-received/info/0' }, 400);
  });

  await group('GET /v1/me for a key, a partner, an application and a session', async (call) => {
    const where = 'get /v1/me';
    for (const auth of [all, partner, session]) await call(where, { url: '/v1/me', auth }, 200);
    const service = await app.inject({
      method: 'POST',
      url: '/oauth/token',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'grant_type=client_credentials&client_id=openapi-service&client_secret=openapi-service-secret',
    });
    await call(where, { url: '/v1/me', auth: `Bearer ${service.json().access_token}` }, 200);
    await call(where, { url: '/v1/me', auth: null }, 401);
    await call(where, { url: '/v1/me?restaurant_id=1' }, 400);
  });

  await group('the token endpoint: every grant and its errors; the authorization endpoint', async (call) => {
    const where = 'post /oauth/token';
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    const token = (payload: string, expected: number, headers: object = form) =>
      call(where, { url: '/oauth/token', payload, headers, auth: null }, expected);
    const exchanged = await token('grant_type=api_key&api_key=ck_test_openapi_all', 200);
    await token('grant_type=api_key&api_key=ck_live_openapi_partner&scope=menu:read', 200);
    await token(`grant_type=refresh_token&refresh_token=${exchanged.json().refresh_token}`, 200);
    await token(`grant_type=refresh_token&refresh_token=${exchanged.json().refresh_token}`, 400);
    await token(
      'grant_type=client_credentials&client_id=openapi-service&client_secret=openapi-service-secret',
      200,
    );
    await token('grant_type=client_credentials&client_id=openapi-service&client_secret=wrong', 401);
    await token('grant_type=api_key&api_key=ck_test_unknown', 401);
    await token('grant_type=api_key&api_key=ck_test_openapi_all&scope=admin', 400);
    await token('grant_type=password&username=a', 400);
    await token('api_key=ck_test_openapi_all', 400);
    await token('{"grant_type":"api_key"}', 400, { 'content-type': 'application/json' });

    const verifier = randomBytes(32).toString('base64url');
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    const authorize = 'get /oauth/authorize';
    const query = new URLSearchParams({
      response_type: 'code',
      client_id: 'openapi-app',
      redirect_uri: REDIRECT,
      scope: 'menu:read webhooks:read',
      state: 's',
      code_challenge: challenge,
      code_challenge_method: 'S256',
    });
    const approved = await call(authorize, { url: `/oauth/authorize?${query}`, auth: session }, 302);
    const code = new URL(String(approved.headers.location)).searchParams.get('code');
    const app = `client_id=openapi-app&redirect_uri=${encodeURIComponent(REDIRECT)}`;
    const installed = await token(
      `grant_type=authorization_code&code=${code}&code_verifier=${verifier}&${app}`,
      200,
    );
    await token(
      `grant_type=refresh_token&refresh_token=${installed.json().refresh_token}&client_id=openapi-app`,
      200,
    );
    await token(`grant_type=authorization_code&code=${code}&code_verifier=${verifier}&${app}`, 400);
    const browser = { accept: 'text/html' };
    await call(authorize, { url: `/oauth/authorize?${query}`, auth: null, headers: browser }, 200);
    query.set('scope', 'admin');
    await call(authorize, { url: `/oauth/authorize?${query}`, auth: session }, 302);
    await call(authorize, { url: `/oauth/authorize?${query}`, auth: null, headers: browser }, 303);
    query.set('client_id', 'unknown-app');
    await call(authorize, { url: `/oauth/authorize?${query}`, auth: session }, 400);
    await call(authorize, { url: `/oauth/authorize?${query}`, auth: null, headers: browser }, 400);
  });

  await group('events and webhook endpoints, with deliveries attempted', async (call) => {
    const endpoints = 'post /v1/webhook-endpoints';
    const created = await call(
      endpoints,
      {
        url: '/v1/webhook-endpoints',
        payload: {
          url: receiver.url('/ok'),
          events: ['product.updated', 'menu.updated'],
          description: 'POS',
        },
      },
      201,
    );
    const failing = await call(
      endpoints,
      {
        url: '/v1/webhook-endpoints',
        payload: { url: receiver.url('/failing'), events: ['product.updated'] },
      },
      201,
    );
    await call(
      endpoints,
      { url: '/v1/webhook-endpoints', payload: { url: 'ftp://x', events: ['product.updated'] } },
      400,
    );
    await call(
      endpoints,
      {
        url: '/v1/webhook-endpoints',
        payload: { url: receiver.url(), events: ['cash_flows.updated'] },
        auth: (await bearerFor(db, [1], ['webhooks:write', 'menu:read'])).authorization,
      },
      403,
    );
    const id = created.json().id;
    const failingId = failing.json().id;
    // nothing listens on port 9: an attempt with no HTTP status
    const closed = { url: 'http://127.0.0.1:9/closed', events: ['product.updated'] };
    const refused = await call(endpoints, { url: '/v1/webhook-endpoints', payload: closed }, 201);
    const refusedId = refused.json().id;
    await app.inject({
      method: 'PUT',
      url: '/v1/products/1001',
      headers: { authorization: all },
      payload: { description: 'Nova descrição' },
    });
    await call(
      'post /v1/webhook-endpoints/{webhookEndpointId}/test',
      { url: `/v1/webhook-endpoints/${id}/test` },
      202,
    );
    const worker = createWebhookWorker({
      db,
      secretKey: secrets.fiscalTokenKey,
      allowPrivate: true,
      log: () => {},
      timeoutMs: 5_000,
    });
    t.after(() => worker.stop());
    await worker.runOnce();
    await call(
      'post /v1/webhook-endpoints/{webhookEndpointId}/rotate-secret',
      { url: `/v1/webhook-endpoints/${id}/rotate-secret` },
      200,
    );
    await call('get /v1/webhook-endpoints', { url: '/v1/webhook-endpoints' }, 200);
    for (const endpoint of [id, failingId, refusedId]) {
      await call(
        'get /v1/webhook-endpoints/{webhookEndpointId}',
        { url: `/v1/webhook-endpoints/${endpoint}` },
        200,
      );
      await call(
        'get /v1/webhook-endpoints/{webhookEndpointId}/deliveries',
        { url: `/v1/webhook-endpoints/${endpoint}/deliveries?limit=5` },
        200,
      );
    }
    await sql`update webhook_endpoints set disabled_at = now(), disabled_reason = 'failing for 3 days' where id = ${failingId}`.execute(
      db,
    );
    await call(
      'get /v1/webhook-endpoints/{webhookEndpointId}',
      { url: `/v1/webhook-endpoints/${failingId}` },
      200,
    );
    await call(
      'post /v1/webhook-endpoints/{webhookEndpointId}/test',
      { url: `/v1/webhook-endpoints/${failingId}/test` },
      409,
    );
    await call(
      'post /v1/webhook-endpoints/{webhookEndpointId}/enable',
      { url: `/v1/webhook-endpoints/${failingId}/enable` },
      200,
    );
    await call(
      'post /v1/webhook-endpoints/{webhookEndpointId}/enable',
      { url: `/v1/webhook-endpoints/${id}/enable` },
      200,
    );
    await call('get /v1/webhook-endpoints/{webhookEndpointId}', { url: '/v1/webhook-endpoints/999999' }, 404);
    await call(
      'get /v1/webhook-endpoints/{webhookEndpointId}/deliveries',
      { url: '/v1/webhook-endpoints/999999/deliveries' },
      404,
    );
    await call(
      'post /v1/webhook-endpoints/{webhookEndpointId}/rotate-secret',
      { url: '/v1/webhook-endpoints/999999/rotate-secret' },
      404,
    );
    await call(
      'post /v1/webhook-endpoints/{webhookEndpointId}/enable',
      { url: '/v1/webhook-endpoints/999999/enable' },
      404,
    );
    await call(
      'delete /v1/webhook-endpoints/{webhookEndpointId}',
      { url: `/v1/webhook-endpoints/${failingId}`, headers: { 'idempotency-key': 'openapi-delete' } },
      204,
    );
    await call(
      'delete /v1/webhook-endpoints/{webhookEndpointId}',
      { url: `/v1/webhook-endpoints/${failingId}`, headers: { 'idempotency-key': 'openapi-delete' } },
      204,
    );
    await call(
      'delete /v1/webhook-endpoints/{webhookEndpointId}',
      { url: `/v1/webhook-endpoints/${failingId}` },
      404,
    );
    const reused = {
      url: `/v1/webhook-endpoints/${refusedId}`,
      headers: { 'idempotency-key': 'openapi-delete' },
    };
    await call('delete /v1/webhook-endpoints/{webhookEndpointId}', reused, 422);
    await call(
      'delete /v1/webhook-endpoints/{webhookEndpointId}',
      { url: `/v1/webhook-endpoints/${refusedId}` },
      204,
    );
    await call('get /v1/webhook-endpoints', { url: '/v1/webhook-endpoints', auth: menuOnly }, 403);
    const more = {
      url: '/v1/webhook-endpoints',
      payload: { url: receiver.url('/more'), events: ['menu.updated'] },
    };
    for (let count = 1; count < 16; count++) await call(endpoints, more, 201);
    await call(endpoints, more, 409);

    await feedSettled(db);
    const where = 'get /v1/events';
    const first = await call(where, { url: '/v1/events?limit=3' }, 200);
    await call(where, { url: `/v1/events?after=${first.json().next_cursor}` }, 200);
    await call(where, { url: '/v1/events?types=product.updated,menu.updated,nfe_received.created' }, 200);
    await call(where, { url: '/v1/events', auth: session }, 200);
    await call(where, { url: '/v1/events', auth: menuOnly }, 200);
    await call(where, { url: '/v1/events?after=not-a-cursor' }, 400);
    await call(where, { url: '/v1/events?types=order.created' }, 400);
  });

  await group('conditional reads answered 304 for the tag held', async (call) => {
    for (const [where, url] of [
      ['get /v1/menu', '/v1/menu?channel=delivery'],
      ['get /v1/products', '/v1/products'],
      ['get /v1/products/{productId}', '/v1/products/1001'],
      ['get /v1/products/{productId}/history', '/v1/products/1001/history'],
      ['get /v1/financial/cash-flows', '/v1/financial/cash-flows?start_date=2026-03-01&end_date=2026-03-31'],
      [
        'get /v1/nfe-received',
        '/v1/nfe-received?start_date=2026-02-01T00:00:00Z&end_date=2026-05-01T00:00:00Z',
      ],
      ['get /v1/events', '/v1/events'],
    ]) {
      const read = await call(where, { url }, 200);
      const held = String(read.headers.etag);
      await call(where, { url, headers: { 'if-none-match': held } }, 304);
      await call(where, { url, headers: { 'if-none-match': `W/${held}, "other"` } }, 304);
    }
  });

  await group('429 answers of a data route and of the token endpoint', async (call) => {
    const limited = await buildTestApp(t, {
      database,
      config: { ...config, rateLimitPerMinute: 1, tokenRateLimitPerMinute: 1 },
    });
    const twice = async (where: string, options: Call) => {
      await call(where, { ...options, on: limited.app });
      await call(where, { ...options, on: limited.app }, 429);
    };
    await twice('get /v1/menu', { url: '/v1/menu' });
    await twice('get /v1/me', { url: '/v1/me', auth: partner });
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    const payload = 'grant_type=api_key&api_key=ck_test_openapi_all';
    await twice('post /oauth/token', { url: '/oauth/token', headers: form, payload, auth: null });
  });

  await t.test('every operation of the document was called and answered a success', () => {
    const missing = Object.entries<any>(doc.paths).flatMap(([path, item]) =>
      Object.keys(item)
        .map((method) => `${method} ${path}`)
        .filter((where) => ![...(answered.get(where) ?? [])].some((status) => status < 400)),
    );
    assert.deepEqual(missing, []);
  });
});
