import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildTestApp } from '../support/app.ts';

const OPERATIONS: Record<string, string> = {
  'get /v1/menu': 'listMenu',
  'get /v1/products': 'listProducts',
  'get /v1/products/{productId}': 'getProduct',
  'post /v1/products': 'createProduct',
  'put /v1/products/{productId}': 'editProduct',
  'put /v1/products/bulk': 'bulkEditProducts',
  'patch /v1/products/{productId}/availability': 'setProductAvailability',
  'get /v1/products/{productId}/history': 'getProductHistory',
  'get /v1/financial/cash-flows': 'listCashFlows',
  'get /v1/nfe-received': 'listReceivedNfe',
  'get /v1/nfe-received/info/{nfe_received_id}': 'getReceivedNfe',
  'get /v1/brands': 'listBrands',
  'get /v1/me': 'getMe',
  'get /v1/events': 'listEvents',
  'post /v1/webhook-endpoints': 'createWebhookEndpoint',
  'get /v1/webhook-endpoints': 'listWebhookEndpoints',
  'get /v1/webhook-endpoints/{webhookEndpointId}': 'getWebhookEndpoint',
  'delete /v1/webhook-endpoints/{webhookEndpointId}': 'deleteWebhookEndpoint',
  'get /v1/webhook-endpoints/{webhookEndpointId}/deliveries': 'listWebhookDeliveries',
  'post /v1/webhook-endpoints/{webhookEndpointId}/test': 'testWebhookEndpoint',
  'post /v1/webhook-endpoints/{webhookEndpointId}/enable': 'enableWebhookEndpoint',
  'post /v1/webhook-endpoints/{webhookEndpointId}/rotate-secret': 'rotateWebhookSecret',
  'post /oauth/token': 'createToken',
  'get /oauth/authorize': 'authorizeApplication',
};

const BOOLEANS = ['only_available', 'include_fiscal_info', 'dry_run', 'paid', 'is_earning', 'pendente'];
const INTEGERS = [
  'offset',
  'limit',
  'brand_id',
  'restaurant_id',
  'nfe_received_id',
  'productId',
  'category_id',
  'provider_id',
  'bank_account_id',
  'payment_method_id',
  'category_subcategory_id',
];

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

test('the OpenAPI document names its resources and types its parameters', async (t) => {
  const { app } = await buildTestApp(t);
  const doc = (await app.inject('/openapi.json')).json();
  const operations = Object.entries<any>(doc.paths).flatMap(([path, item]) =>
    Object.entries<any>(item).map(([method, operation]) => ({ where: `${method} ${path}`, operation })),
  );
  const op = (where: string) => operations.find((o) => o.where === where)!.operation;
  const json = (content: any) => content.content['application/json'].schema;
  const schemas = doc.components.schemas;

  await t.test('no operation lacks a deliberate operationId, and none repeats', () => {
    const found = Object.fromEntries(
      operations.map(({ where, operation }) => [where, operation.operationId]),
    );
    assert.deepEqual(found, OPERATIONS);
  });

  await t.test('every operation has one tag, described by the document in one line', () => {
    const described = new Map(doc.tags.map((tag: any) => [tag.name, tag.description]));
    for (const { where, operation } of operations) {
      assert.equal(operation.tags.length, 1, where);
      const description = described.get(operation.tags[0]);
      assert.ok(typeof description === 'string' && !description.includes('\n'), where);
    }
  });

  await t.test('bodies and answers are the named resources, by $ref', () => {
    const uses: [any, string][] = [
      [json(op('get /v1/products/{productId}').responses['200']), 'Product'],
      [json(op('post /v1/products').requestBody), 'ProductInput'],
      [json(op('post /v1/products').responses['201']), 'Product'],
      [json(op('put /v1/products/{productId}').requestBody), 'ProductEdit'],
      [json(op('put /v1/products/bulk').requestBody).items, 'BulkEditItem'],
      [json(op('patch /v1/products/{productId}/availability').requestBody), 'ProductAvailability'],
      [json(op('get /v1/products/{productId}/history').responses['200']), 'ProductHistory'],
      [json(op('get /v1/products').responses['200']).items, 'Category'],
      [json(op('get /v1/menu').responses['200']), 'Menu'],
      [json(op('get /v1/financial/cash-flows').responses['200']), 'CashFlowsPage'],
      [json(op('get /v1/nfe-received').responses['200']).items, 'NfeReceived'],
      [json(op('get /v1/nfe-received/info/{nfe_received_id}').responses['200']), 'NfeDetail'],
      [json(op('get /v1/brands').responses['200']).properties.data.items, 'Brand'],
      [json(op('post /oauth/token').responses['200']), 'TokenResponse'],
      [json(op('post /oauth/token').responses['400']).allOf[0], 'TokenError'],
      [json(op('get /v1/menu').responses['401']).allOf[0], 'Error'],
      [json(op('put /v1/products/bulk').responses['409']).allOf[0], 'UpdateConflict'],
    ];
    for (const [schema, name] of uses) assert.deepEqual(schema, ref(name), name);
    assert.deepEqual(schemas.Menu.properties.categories.items, ref('MenuCategory'));
    assert.deepEqual(schemas.MenuCategory.properties.products.items, ref('MenuProduct'));
    assert.deepEqual(schemas.CashFlowsPage.properties.cash_flows.items, ref('CashFlow'));
    assert.deepEqual(schemas.Error.properties.errors.items, ref('ValidationError'));
    for (const name of ['Product', 'ChangeReview', 'Brand', 'NfeDetail', 'MenuProduct']) {
      assert.equal(schemas[name].type, 'object', name);
    }
  });

  await t.test('query booleans are booleans and numeric query and path parameters integers', () => {
    const parameters = operations.flatMap(({ where, operation }) =>
      (operation.parameters ?? []).map((p: any) => ({ where, ...p })),
    );
    for (const parameter of parameters) {
      const where = `${parameter.where} ${parameter.name}`;
      if (BOOLEANS.includes(parameter.name)) assert.equal(parameter.schema.type, 'boolean', where);
      if (INTEGERS.includes(parameter.name)) assert.equal(parameter.schema.type, 'integer', where);
      assert.notDeepEqual(parameter.schema.enum, ['true', 'false'], where);
      assert.ok(!/\[0-9\]|\\d/.test(parameter.schema.pattern ?? '') || /date/.test(parameter.name), where);
    }
    const named = new Set(parameters.map((p) => p.name));
    for (const name of [...BOOLEANS, ...INTEGERS]) assert.ok(named.has(name), name);
  });

  await t.test('a single edit body has no id, and no body accepts a field the service refuses', () => {
    assert.equal(schemas.ProductEdit.properties.id, undefined);
    assert.ok(schemas.BulkEditItem.required.includes('id'));
    for (const name of [
      'ProductInput',
      'ProductEdit',
      'BulkEditItem',
      'ProductAvailability',
      'FiscalInfoInput',
    ]) {
      assert.equal(schemas[name].additionalProperties, false, name);
    }
  });

  await t.test("the product name's 1 to 255 characters once trimmed are in the schema", () => {
    for (const body of ['ProductInput', 'ProductEdit', 'BulkEditItem']) {
      const name = schemas[body].properties.name;
      const pattern = new RegExp(name.pattern, 'u');
      const accepted = (text: string) => pattern.test(text);
      for (const text of [
        'a',
        ' Pizza ',
        'a'.repeat(255),
        `  ${'a'.repeat(255)}\t`,
        '🍕'.repeat(255),
        'a\nb',
      ]) {
        assert.ok(accepted(text), `${body}: ${JSON.stringify(text.slice(0, 12))} (${text.length})`);
      }
      for (const text of ['', '   ', '\t\n', 'a'.repeat(256), '🍕'.repeat(256), ` ${'a'.repeat(256)} `]) {
        assert.ok(!accepted(text), `${body}: ${JSON.stringify(text.slice(0, 12))} (${text.length})`);
      }
    }
  });

  await t.test('the change review is told from a product by dry_run, which no product has', () => {
    assert.equal(schemas.ChangeReview.properties.dry_run.const, true);
    assert.ok(schemas.ChangeReview.required.includes('dry_run'));
    assert.equal(schemas.Product.properties.dry_run, undefined);
    for (const where of ['put /v1/products/{productId}', 'put /v1/products/bulk']) {
      const answers = json(op(where).responses['200']).anyOf;
      assert.deepEqual(answers.at(-1), ref('ChangeReview'), where);
    }
  });
});
