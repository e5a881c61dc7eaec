// An integrator's script over the installed @comanda/client tarball, run by package.test.ts with
// Node 20 in an empty project: it prints what it read as one JSON line.
import { ComandaClient, ComandaError } from '@comanda/client';

const env = (name) => process.env[name] ?? '';
const client = new ComandaClient({
  baseUrl: env('COMANDA_URL'),
  apiKey: env('COMANDA_API_KEY'),
  restaurantId: Number(env('COMANDA_RESTAURANT_ID')),
});

const me = await client.getMe();
const menu = await client.getMenu({ channel: 'delivery' });
const productId = menu.categories.flatMap((category) => category.products)[0].id;
const product = await client.getProduct(productId);
const edited = await client.editProduct(productId, {
  price: 61.5,
  expected_updated_at: product.updated_at,
});
const review = await client.bulkEditProducts([{ id: productId, price: 70 }], { dryRun: true });
const financeRestaurant = Number(env('COMANDA_FINANCE_RESTAURANT_ID'));
const pages = [];
for await (const page of client.cashFlowPages(
  { start_date: '2026-01-01', end_date: '2026-03-31' },
  { restaurantId: financeRestaurant },
)) {
  pages.push({ offset: page.offset, count: page.count, remaining: page.remaining });
}
const notes = await client.listReceivedNfe({
  start_date: '2026-01-01T00:00:00Z',
  end_date: '2026-01-31T23:59:59Z',
});
const detail = await client.getReceivedNfe(notes[0].id);
const refused = await client.getProduct(999_999).catch((error) => error);

console.log(
  JSON.stringify({
    me: { kind: me.kind, restaurants: me.restaurants.map((restaurant) => restaurant.id) },
    productId,
    edited: { price: edited.price, changed: edited.updated_at !== product.updated_at },
    review: { dryRun: review.dry_run, changes: review.products[0].changes },
    pages,
    notes: notes.map((note) => note.id),
    detail: { accessKey: detail.identification.access_key, issuer: detail.issuer.name },
    refused: refused instanceof ComandaError ? { status: refused.status, key: refused.key } : String(refused),
  }),
);
