// Demo finance: suppliers, bank accounts, payment methods, cost centres and 300 cash-flow entries
// over four months: sales and expenses, invoices and titles with items, paid and open, a few deleted.
import { cnpj } from './documents.ts';
import { brazilInstant, dayOf, type Period } from './period.ts';
import type { Random } from './random.ts';

type Named = { id: number; restaurant_id: number; name: string };

export const SUPPLIERS = [
  {
    id: 50,
    restaurant_id: 1,
    name: 'Distribuidora Sul Alimentos',
    document: cnpj('012345670001'),
    active: true,
  },
  { id: 51, restaurant_id: 1, name: 'Laticínios Serra Azul', document: cnpj('023456780001'), active: true },
  { id: 52, restaurant_id: 1, name: 'Bebidas Paulista', document: cnpj('034567890001'), active: true },
  { id: 53, restaurant_id: 1, name: 'Embalagens Pack Fácil', document: cnpj('045678900001'), active: true },
  { id: 54, restaurant_id: 1, name: 'Hortifruti Ceasa', document: cnpj('056789010001'), active: false },
  { id: 55, restaurant_id: 1, name: 'Frigorífico Boi Bom', document: cnpj('067890120001'), active: true },
  { id: 60, restaurant_id: 2, name: 'Pescados Rio Negro', document: cnpj('078901230001'), active: true },
  { id: 61, restaurant_id: 2, name: 'Distribuidora Amazonas', document: cnpj('089012340001'), active: true },
  { id: 62, restaurant_id: 2, name: 'Açaí do Pará', document: cnpj('090123450001'), active: true },
];

const named = (rows: [number, number, string][]): Named[] =>
  rows.map(([id, restaurant_id, name]) => ({ id, restaurant_id, name }));

const BANKS = named([
  [70, 1, 'Conta principal Itaú'],
  [71, 1, 'Conta Nubank PJ'],
  [72, 2, 'Conta Banco da Amazônia'],
]);
const METHODS = named([
  [80, 1, 'PIX'],
  [81, 1, 'Boleto'],
  [82, 1, 'Cartão de crédito'],
  [83, 1, 'Dinheiro'],
  [84, 2, 'PIX'],
  [85, 2, 'Boleto'],
  [86, 2, 'Cartão de débito'],
]);
const CENTRES = named([
  [90, 1, 'Insumos'],
  [91, 1, 'Bebidas'],
  [92, 1, 'Aluguel'],
  [93, 1, 'Folha de pagamento'],
  [94, 1, 'Marketing'],
  [95, 1, 'Vendas salão'],
  [96, 1, 'Vendas delivery'],
  [97, 2, 'Insumos'],
  [98, 2, 'Folha de pagamento'],
  [99, 2, 'Vendas'],
  [100, 2, 'Energia e água'],
]);

const of = <T extends { restaurant_id: number }>(rows: T[], restaurantId: number) =>
  rows.filter((r) => r.restaurant_id === restaurantId);

export function demoFinance(random: Random, period: Period) {
  const cash_flows: Record<string, unknown>[] = [];
  let nextId = 5001;
  const entry = (restaurantId: number, n: number) => {
    const month = period.months[n % 4];
    const due_date = dayOf(month, random.int(1, 28));
    const is_earning = random.chance(0.45);
    const kind = random.next();
    const entry_type =
      kind < 0.74 ? 'standalone' : kind < 0.88 ? (is_earning ? 'title' : 'invoice') : 'title';
    const paid = due_date <= period.today ? random.chance(0.85) : random.chance(0.05);
    const suppliers = of(SUPPLIERS, restaurantId);
    const centres = of(CENTRES, restaurantId);
    const supplier = is_earning ? null : random.pick(suppliers);
    const itemCount = entry_type === 'standalone' ? 0 : random.int(2, 4);
    const items = Array.from({ length: itemCount }, (_, i) => ({
      id: 0,
      description: is_earning
        ? `Recebível ${i + 1}`
        : random.pick(['Farinha', 'Tomate', 'Queijo', 'Carne', 'Peixe', 'Refrigerantes', 'Embalagens']),
      value: (random.int(2000, 90000) / 100).toFixed(2),
      category_subcategory_id: random.pick(centres).id,
      counts_for_result: true,
    }));
    const cents = items.length
      ? items.reduce((sum, item) => sum + Math.round(Number(item.value) * 100), 0)
      : random.int(1500, is_earning ? 800000 : 350000);
    const id = nextId++;
    for (const item of items) item.id = nextId++;
    const transfer = entry_type === 'standalone' && random.chance(0.03);
    cash_flows.push({
      id,
      restaurant_id: restaurantId,
      entry_type,
      description: transfer
        ? 'Transferência entre contas'
        : describe(entry_type, is_earning, supplier?.name, random),
      value: (cents / 100).toFixed(2),
      due_date,
      competence_date: random.chance(0.3) ? null : dayOf(month, 1),
      paid,
      paid_at: paid ? brazilInstant([due_date, period.today].sort()[0], '14:30') : null,
      is_earning,
      provider_id: supplier?.id ?? null,
      bank_account_id: random.pick(of(BANKS, restaurantId)).id,
      payment_method_id: random.pick(of(METHODS, restaurantId)).id,
      category_subcategory_id: items.length ? null : random.pick(centres).id,
      counts_for_result: !transfer && !items.length,
      deleted_at: n % 61 === 17 ? brazilInstant(due_date, '09:00') : null,
      ...(items.length ? { items } : {}),
    });
  };
  for (let n = 0; n < 200; n++) entry(1, n);
  for (let n = 0; n < 100; n++) entry(2, n);
  return {
    suppliers: SUPPLIERS.map((s) => ({ ...s, deleted_at: null })),
    bank_accounts: BANKS,
    payment_methods: METHODS,
    cost_centres: CENTRES,
    cash_flows,
  };
}

function describe(type: string, earning: boolean, supplier: string | undefined, random: Random): string {
  if (type === 'invoice') return `NF ${random.int(1000, 99999)} ${supplier}`;
  if (type === 'title') return earning ? 'Recebíveis de cartão agrupados' : `Título agrupado ${supplier}`;
  if (earning)
    return random.pick(['Vendas do salão', 'Vendas delivery', 'Vendas marketplace', 'Evento fechado']);
  return random.pick([
    'Aluguel',
    'Conta de energia',
    'Folha de pagamento',
    'Manutenção',
    `Compra ${supplier}`,
  ]);
}
