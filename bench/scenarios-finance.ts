// Cash flows (the former bench/cash-flows.ts): the first and the last page of a 92-day window of
// the 1,000,000-entry restaurant (about 80,000 main entries in the window), repeated on 100,000
// entries (10x fewer in the window) and on 840,000 entries inside the window (10x more); its
// filters with --all. Received NF-e: the list of 2,000 notes, the 45 KiB and the 1 MiB detail, and
// the menu read while four clients read 1 MiB details.

import { DETAIL_NOTE, detailNoteId, NFE_WINDOW, TYPICAL_NOTE, typicalNoteId } from './data-nfe.ts';
import { DATASETS, type Dataset } from './datasets.ts';
import { get, P99_TARGET_MS, type Scenario, type ScenarioContext, scaling } from './scenario.ts';

const WINDOW = { start_date: '2025-04-01', end_date: '2025-07-01' };
/** The dense set's whole period (datasets.ts). */
const DENSE_WINDOW = { start_date: '2023-01-01', end_date: '2023-04-02' };
const POINT_READ = { ratioTarget: 0.25, p99Target: P99_TARGET_MS };

function cashFlows(
  dataset: Dataset,
  page: 'first' | 'last',
  filter = '',
  scale?: Scenario['scale'],
): Scenario {
  const window = dataset === DATASETS.cashDense ? DENSE_WINDOW : WINDOW;
  const query = new URLSearchParams({ ...window, ...Object.fromEntries(new URLSearchParams(filter)) });
  const path = `/v1/financial/cash-flows?${query}`;
  return {
    id: `cash-flows-${dataset.restaurantId}-${page}${filter ? `-${filter.replace(/[=&_]/g, '-')}` : ''}`,
    label: `GET /v1/financial/cash-flows, ${page} page${filter ? ` (${filter})` : ''}`,
    dataset,
    read: true,
    ...(scale ? scaling(scale) : POINT_READ),
    async request(ctx) {
      const credential = ctx.credential(dataset.restaurantId);
      if (page === 'first') return get(path, credential);
      const { total } = JSON.parse(await ctx.send(get(path, credential))) as { total: number };
      return get(`${path}&offset=${Math.max(0, Math.floor((total - 1) / 100) * 100)}`, credential);
    },
  };
}

const nfe = DATASETS.nfe;

/** `cash`: the cash-flow set of the nominal rows (a quick run takes the 100,000-entry one). */
export const financeScenarios = (cash: Dataset = DATASETS.cash1m): Scenario[] => [
  cashFlows(cash, 'first'),
  cashFlows(cash, 'last'),
  {
    id: 'nfe-list',
    label: 'GET /v1/nfe-received (2,000 notes)',
    dataset: nfe,
    read: true,
    ...POINT_READ,
    request: async (ctx) =>
      get(`/v1/nfe-received?${new URLSearchParams(NFE_WINDOW)}`, ctx.credential(nfe.restaurantId)),
  },
  {
    id: 'nfe-detail-45k',
    label: 'GET /v1/nfe-received/info/{id} (45 KiB document)',
    dataset: nfe,
    read: true,
    providerAddsAtMost: 5,
    providerKey: TYPICAL_NOTE.access_key,
    request: async (ctx) =>
      get(`/v1/nfe-received/info/${typicalNoteId(nfe.restaurantId)}`, ctx.credential(nfe.restaurantId)),
  },
  {
    id: 'nfe-detail',
    label: 'GET /v1/nfe-received/info/{id} (1 MiB document)',
    dataset: nfe,
    read: true,
    providerAddsAtMost: 60,
    providerKey: DETAIL_NOTE.access_key,
    request: async (ctx) => detailRequest(ctx),
  },
  {
    id: 'menu-beside-nfe-detail',
    label: 'GET /v1/menu?channel=in_store while 4 clients read 1 MiB NF-e details',
    dataset: DATASETS.menu2k,
    alsoReads: [nfe],
    read: true,
    p99BesideAtMost: 1.5,
    request: async (ctx) => get('/v1/menu?channel=in_store', ctx.credential(DATASETS.menu2k.restaurantId)),
    background(ctx) {
      let stopped = false;
      let count = 0;
      let failed = 0;
      // The readers read each answer to its end and drop it (drain): the 1 MiB they would decode
      // and turn into text here is client work on the cores the server is measured on.
      const read = ctx.drain ?? ctx.send;
      const reader = async () => {
        const request = await detailRequest(ctx);
        while (!stopped)
          await read(request).then(
            () => count++,
            () => failed++,
          );
      };
      const readers = Array.from({ length: DETAIL_READERS }, reader);
      return () => {
        stopped = true;
        void Promise.all(readers);
        return `${count} NF-e details (1 MiB) read beside the menu by ${DETAIL_READERS} clients${failed ? `, ${failed} failed` : ''}`;
      };
    },
  },
];

const DETAIL_READERS = 4;

const detailRequest = async (ctx: ScenarioContext) =>
  get(`/v1/nfe-received/info/${detailNoteId(nfe.restaurantId)}`, ctx.credential(nfe.restaurantId));

export const cashFlowScaling: Scenario[] = [
  cashFlows(DATASETS.cash100k, 'first', '', 'small'),
  cashFlows(DATASETS.cash100k, 'last', '', 'small'),
  cashFlows(DATASETS.cashDense, 'first', '', 'large'),
  cashFlows(DATASETS.cashDense, 'last', '', 'large'),
];

export const cashFlowFilters: Scenario[] = [
  'date_type=competence_date',
  'paid=false',
  'category_subcategory_id=21007',
  'provider_id=21013',
].flatMap((filter) => [
  cashFlows(DATASETS.cash1m, 'first', filter),
  cashFlows(DATASETS.cash1m, 'last', filter),
]);
