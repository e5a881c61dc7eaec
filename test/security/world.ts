// Two restaurants, as an import file: A is the caller's, B is the other one. Every text of B
// carries OTHER_MARKER, so a response that leaks B's data is found by a substring search.
// Ids start at `base` so the process-level suite can keep its rate-limit keys apart.
import { SCOPES } from '../../src/http/principal.ts';
import { accessKey } from '../support/nfe-world.ts';

export const OTHER_MARKER = 'ZZOTHERRESTAURANTZZ';
export const ALL_SCOPES: string[] = SCOPES;

export type WorldIds = ReturnType<typeof worldIds>;

export function worldIds(base = 0, products = 10) {
  const side = (offset: number, key: string) => ({
    restaurant: base + offset,
    brand: base + offset * 10,
    category: base + offset * 100,
    products: Array.from({ length: products }, (_, i) => base + offset * 100_000 + i + 1),
    supplier: base + offset * 10 + 1,
    costCentre: base + offset * 10 + 2,
    cashFlow: base + offset * 1000,
    nfe: base + offset * 1000 + 1,
    apiKeyId: base + offset,
    apiKey: `ck_test_${key}_${base}`,
    fiscalToken: `fiscal-token-${key}-${base}`,
  });
  return { a: side(1, 'restaurant_a'), b: side(2, 'restaurant_b') };
}

type Side = WorldIds['a'];

function restaurant(side: Side, label: string, noteNumber: number) {
  return {
    restaurants: [{ id: side.restaurant, name: `Restaurant ${label}`, timezone: 'America/Sao_Paulo' }],
    brands: [
      {
        id: side.brand,
        restaurant_id: side.restaurant,
        name: `Brand ${label}`,
        cnpj: '01234567000189',
        is_default: true,
        fiscal_token: side.fiscalToken,
      },
    ],
    product_categories: [
      { id: side.category, restaurant_id: side.restaurant, brand_id: side.brand, name: `Category ${label}` },
    ],
    products: side.products.map((id, i) => ({
      id,
      restaurant_id: side.restaurant,
      product_category_id: side.category,
      name: `Product ${label} ${i}`,
      description: `Description ${label}`,
      price: 10 + i,
      fiscal: { ncm: '02013000', cfop: '5102' },
      updated_at: '2026-01-10T12:00:00.000Z',
      created_at: '2026-01-10T12:00:00.000Z',
    })),
    suppliers: [
      {
        id: side.supplier,
        restaurant_id: side.restaurant,
        name: `Supplier ${label}`,
        document: '12345678000199',
      },
    ],
    cost_centres: [{ id: side.costCentre, restaurant_id: side.restaurant, name: `Centre ${label}` }],
    cash_flows: [
      {
        id: side.cashFlow,
        restaurant_id: side.restaurant,
        entry_type: 'standalone',
        description: `Entry ${label}`,
        value: '100.00',
        due_date: '2026-03-10',
        is_earning: true,
        provider_id: side.supplier,
        category_subcategory_id: side.costCentre,
      },
    ],
    nfe_received: [
      {
        id: side.nfe,
        restaurant_id: side.restaurant,
        brand_id: side.brand,
        access_key: accessKey(noteNumber),
        issuer_name: `Issuer ${label}`,
        issuer_document: '12345678000199',
        total: '300.00',
        situation: 'autorizada',
        manifestation_type: 'confirmacao',
        issued_at: '2026-01-10T13:00:00Z',
      },
    ],
    api_keys: [
      {
        id: side.apiKeyId,
        key: side.apiKey,
        name: `Key ${label}`,
        restaurant_ids: [side.restaurant],
        scopes: ALL_SCOPES,
      },
    ],
  };
}

/** The import file: restaurant A ("A") and restaurant B (every text marked). */
export function securityWorld(ids: WorldIds): Record<string, unknown[]> {
  const a = restaurant(ids.a, 'A', 1);
  const b = restaurant(ids.b, OTHER_MARKER, 2);
  return Object.fromEntries(
    Object.keys(a).map((k) => [k, [...a[k as keyof typeof a], ...b[k as keyof typeof b]]]),
  );
}

/** The provider documents of the world's notes, for startFiscalSimulator. */
export function providerNotes(): Map<string, Record<string, unknown>> {
  const note = (n: number, issuer: string) => ({
    chave_nfe: accessKey(n),
    nome_emitente: issuer,
    documento_emitente: '12345678000199',
    valor_total: '300.00',
    data_emissao: '2026-01-10T10:00:00-03:00',
    situacao: 'autorizada',
    manifestacao_destinatario: 'confirmacao',
    nfe_completa: false,
    versao: 1,
  });
  return new Map([
    [accessKey(1), note(1, 'Issuer A')],
    [accessKey(2), note(2, `Issuer ${OTHER_MARKER}`)],
  ]);
}

/** The process-level suite's world: ids from a random base, and extra API keys of restaurant A. */
export function reliabilityWorld(options: { products?: number; keys?: number } = {}) {
  const base = (1 + Math.floor(Math.random() * 900)) * 1_000_000;
  const ids = worldIds(base, options.products ?? 20);
  const data = securityWorld(ids);
  const keys = Array.from({ length: options.keys ?? 4 }, (_, i) => ({
    id: base + 100 + i,
    key: `ck_test_reliability_${base}_${i}`,
    name: `Reliability ${i}`,
    restaurant_ids: [ids.a.restaurant],
    scopes: ALL_SCOPES,
  }));
  data.api_keys.push(...keys);
  return { ids, data, keys };
}
