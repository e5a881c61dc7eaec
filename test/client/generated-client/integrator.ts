// What an integrator writes with openapi-fetch over the types openapi-typescript generates from
// GET /openapi.json (`./api.ts`, written beside this file by generated-client.test.ts, which
// type-checks it). Not part of the project's typecheck: api.ts exists only in that folder.
// Every access is typed by the document alone: no casts, no `any`.
import createClient from 'openapi-fetch';
import type { components, paths } from './api.ts';

type Product = components['schemas']['Product'];
type ChangeReview = components['schemas']['ChangeReview'];

const baseUrl = process.env.COMANDA_URL ?? 'http://127.0.0.1:3000';

// 1. An access token for an API key (form body, RFC 6749 errors).
const oauth = createClient<paths>({ baseUrl });
const token = await oauth.POST('/oauth/token', {
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body: { grant_type: 'api_key', api_key: process.env.COMANDA_API_KEY ?? '' },
});
if (!token.data) throw new Error(`${token.error.error}: ${token.error.error_description}`);
const refreshIn: number = token.data.expires_in - 60;
const api = createClient<paths>({ baseUrl, headers: { authorization: `Bearer ${token.data.access_token}` } });

// 2. The menu, available products only: booleans and integers as they are.
const menu = await api.GET('/v1/menu', { params: { query: { only_available: true, channel: 'delivery' } } });
if (!menu.data) throw new Error(`${menu.error.key}: ${menu.error.message}`);
const listed = menu.data.categories.flatMap((category) => category.products);
const prices: string[] = listed.map((product) => product.pricing.resolved.base);
const productId: number = listed[0]?.id ?? 1;

// 3. An edit guarded by the version read; the answer is a Product (no dry_run).
const read = await api.GET('/v1/products/{productId}', { params: { path: { productId } } });
if (!read.data) throw new Error(read.error.message);
const edited = await api.PUT('/v1/products/{productId}', {
  params: { path: { productId } },
  body: { price: 42.9, expected_updated_at: read.data.updated_at },
});
// A 409 is product_update_conflict (with conflicts) or idempotency_key_in_use (without).
if (edited.response.status === 409 && edited.error && 'conflicts' in edited.error && edited.error.conflicts) {
  const stale: string[] = edited.error.conflicts.map((conflict) => conflict.current_updated_at);
  console.log('changed meanwhile', stale);
}
if (!edited.data) throw new Error(edited.error.message);
if ('dry_run' in edited.data) throw new Error('a write without dry_run answers the product');
const product: Product = edited.data;
const version: string = edited.data.updated_at;

// 4. A bulk edit reviewed first (dry_run=true answers a ChangeReview, told apart by dry_run).
const reviewed = await api.PUT('/v1/products/bulk', {
  params: { query: { dry_run: true } },
  body: [{ id: productId, price: 45, expected_updated_at: version }],
});
if (!reviewed.data) throw new Error(reviewed.error.message);
if (!('dry_run' in reviewed.data)) throw new Error('dry_run=true answers the review');
const review: ChangeReview = reviewed.data;
for (const preview of review.products) {
  const fields: string[] = preview.changes.map((change) => change.field);
  console.log(preview.id, preview.proposed.price, fields, preview.expected_updated_at);
}

// 5. Every page of cash flows, with a numeric offset.
let offset = 0;
let earnings = 0;
for (;;) {
  const page = await api.GET('/v1/financial/cash-flows', {
    params: { query: { start_date: '2026-01-01', end_date: '2026-01-31', offset, paid: true } },
  });
  if (!page.data) throw new Error(page.error.message);
  for (const entry of page.data.cash_flows) if (entry.is_earning) earnings += Number(entry.value);
  if (page.data.remaining === 0) break;
  offset += page.data.count;
}

// 6. A brand, its notes, one note in detail.
const brands = await api.GET('/v1/brands');
if (!brands.data) throw new Error(brands.error.message);
const brand = brands.data.data.find((candidate) => candidate.fiscal_configured);
const notes = await api.GET('/v1/nfe-received', {
  params: {
    query: {
      start_date: '2026-01-01T00:00:00-03:00',
      end_date: '2026-01-31T23:59:59-03:00',
      brand_id: brand?.id,
      pendente: false,
    },
  },
});
if (!notes.data) throw new Error(notes.error.message);
const note = notes.data[0];
if (note) {
  const detail = await api.GET('/v1/nfe-received/info/{nfe_received_id}', {
    params: { path: { nfe_received_id: note.id } },
  });
  if (!detail.data) throw new Error(`${detail.error.key}: ${detail.error.message}`);
  const accessKey: string = detail.data.identification.access_key;
  const recipient: string | null = detail.data.recipient.cnpj ?? detail.data.recipient.cpf;
  console.log(accessKey, recipient, detail.data.invoice === null ? 'summary only' : 'full document');
}

console.log({ refreshIn, prices, product: product.name, earnings });
