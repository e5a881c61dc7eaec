// GET /v1/menu (the former bench/menu.ts): both channels with and without only_available on the
// 2,000-product catalog, repeated at 200 and 20,000 products, and the menu read while the catalog
// changes every 100 ms (each change is a cache miss for the next read).
import { catalogIds } from './data-catalog.ts';
import { type CatalogDataset, DATASETS } from './datasets.ts';
import { get, json, P99_TARGET_MS, type Scenario, scaling } from './scenario.ts';

type Variant = { channel: 'in_store' | 'delivery'; available: boolean };
const VARIANTS: Variant[] = [
  { channel: 'in_store', available: false },
  { channel: 'in_store', available: true },
  { channel: 'delivery', available: false },
  { channel: 'delivery', available: true },
];

function menu(dataset: CatalogDataset, variant: Variant, scale?: Scenario['scale']): Scenario {
  const query = `channel=${variant.channel}${variant.available ? '&only_available=true' : ''}`;
  return {
    id: `menu-${dataset.set.products}-${variant.channel}${variant.available ? '-available' : ''}`,
    label: `GET /v1/menu?${query}`,
    dataset,
    read: true,
    ...(scale ? scaling(scale) : { ratioTarget: 0.5, p99Target: P99_TARGET_MS }),
    request: async (ctx) => get(`/v1/menu?${query}`, ctx.credential(dataset.restaurantId)),
  };
}

const churned = DATASETS.writes;

export const menuScenarios: Scenario[] = [
  ...VARIANTS.map((variant) => menu(DATASETS.menu2k, variant)),
  {
    ...menu(churned, VARIANTS[0]),
    id: 'menu-churn',
    label: 'GET /v1/menu?channel=in_store, a catalog write every 100 ms',
    // Not a row of the issue: the cost of cache misses, shown without a target.
    ratioTarget: undefined,
    p99Target: undefined,
    background(ctx) {
      const write = json('PATCH', ctx.credential(churned.restaurantId), (n) => ({
        path: `/v1/products/${catalogIds(churned.restaurantId) + 1}/availability`,
        body: { available: n % 2 === 0 },
      }));
      let count = 0;
      let failed = 0;
      const timer = setInterval(
        () =>
          ctx.send(write).then(
            () => count++,
            () => failed++,
          ),
        100,
      );
      return () => {
        clearInterval(timer);
        return `${count} catalog writes during the windows${failed ? `, ${failed} failed` : ''}`;
      };
    },
  },
];

/** The two ends of the work per product (everything shown; every rule evaluated), to fit the run in 10 minutes. */
const SCALED = [VARIANTS[0], VARIANTS[3]];

export const menuScaling: Scenario[] = [
  ...SCALED.map((variant) => menu(DATASETS.menu200, variant, 'small')),
  ...SCALED.map((variant) => menu(DATASETS.menu20k, variant, 'large')),
];
