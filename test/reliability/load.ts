// A stream of requests against running instances while a fault is injected, recorded so a test
// can check every answer afterwards: reads, menu reads and bulk edits of one product set, each
// batch writing its own marker so a partial write would show in the products and the history.
import pg from 'pg';
import { type HttpAnswer, http } from './harness.ts';

export type Sample = {
  kind: 'read' | 'menu' | 'bulk';
  batch?: number;
  at: number;
  status: number;
  key?: string;
  ms: number;
  retryAfter?: string | null;
  errorId?: string | null;
};

export type Load = { samples: Sample[]; stop(): Promise<void> };

export const marker = (batch: number) => `batch-${batch}`;

/** Workers loop until stopped; each request is bounded by `boundMs` (a hang would show as -1). */
export function startLoad(options: {
  urls: string[];
  headers: () => Record<string, string>;
  bulkIds: number[];
  readers?: number;
  writers?: number;
  boundMs?: number;
  pauseMs?: number;
}): Load {
  const samples: Sample[] = [];
  const started = Date.now();
  let running = true;
  let nextBatch = 1;
  const record = (kind: Sample['kind'], answer: HttpAnswer, batch?: number) =>
    samples.push({
      kind,
      batch,
      at: Date.now() - started,
      status: answer.status,
      key: answer.json?.key,
      ms: Math.round(answer.ms),
      retryAfter: answer.headers.get('retry-after'),
      errorId: answer.headers.get('x-error-id'),
    });
  const pause = () => new Promise((resolve) => setTimeout(resolve, options.pauseMs ?? 20));
  const reader = async (n: number) => {
    for (let i = 0; running; i++) {
      const url = options.urls[(n + i) % options.urls.length];
      const kind = i % 2 ? 'menu' : 'read';
      record(
        kind,
        await http(
          `${url}${kind === 'menu' ? '/v1/menu' : '/v1/products'}`,
          { headers: options.headers() },
          options.boundMs ?? 10_000,
        ),
      );
      await pause();
    }
  };
  const writer = async (n: number) => {
    for (let i = 0; running; i++) {
      const batch = nextBatch++;
      const body = JSON.stringify(
        options.bulkIds.map((id) => ({ id, description: marker(batch), price: (100 + batch) / 100 })),
      );
      const url = options.urls[(n + i) % options.urls.length];
      record(
        'bulk',
        await http(
          `${url}/v1/products/bulk`,
          { method: 'PUT', headers: options.headers(), body },
          options.boundMs ?? 10_000,
        ),
        batch,
      );
      await pause();
    }
  };
  const workers = [
    ...Array.from({ length: options.readers ?? 2 }, (_, n) => reader(n)),
    ...Array.from({ length: options.writers ?? 2 }, (_, n) => writer(n)),
  ];
  return {
    samples,
    stop: async () => {
      running = false;
      await Promise.all(workers);
    },
  };
}

export function summarise(samples: Sample[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const s of samples) counts[`${s.kind} ${s.status}`] = (counts[`${s.kind} ${s.status}`] ?? 0) + 1;
  return counts;
}

export type BatchCheck = {
  committed: Set<number>;
  partial: number[];
  finalBatch: number | undefined;
  uniform: boolean;
  lastCommitted: number | undefined;
};

/**
 * What the database holds after the stream: each batch's history rows (one per product it
 * changed, written in the batch's transaction) and the products themselves.
 */
export async function checkBatches(
  databaseUrl: string,
  restaurantId: number,
  ids: number[],
): Promise<BatchCheck> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const history = await client.query(
      `select pc.id, pc.product_id, c->>'to' as marker from product_changes pc, jsonb_array_elements(pc.changes) c
       where pc.restaurant_id = $1 and pc.product_id = any($2) and c->>'field' = 'description' and c->>'to' like 'batch-%'
       order by pc.id`,
      [restaurantId, ids],
    );
    const byBatch = new Map<number, Set<number>>();
    let lastCommitted: number | undefined;
    for (const row of history.rows) {
      const batch = Number(row.marker.slice('batch-'.length));
      byBatch.set(batch, (byBatch.get(batch) ?? new Set()).add(row.product_id));
      lastCommitted = batch;
    }
    const products = await client.query(
      'select id, description, price::text as price from products where id = any($1)',
      [ids],
    );
    const finals = new Set(products.rows.map((p) => `${p.description}|${p.price}`));
    const [first] = products.rows;
    const finalBatch = first?.description?.startsWith('batch-')
      ? Number(first.description.slice(6))
      : undefined;
    const priceMatches = products.rows.every(
      (p) => finalBatch === undefined || p.price === ((100 + finalBatch) / 100).toFixed(2),
    );
    return {
      committed: new Set(byBatch.keys()),
      partial: [...byBatch].filter(([, set]) => set.size !== ids.length).map(([batch]) => batch),
      finalBatch,
      uniform: finals.size === 1 && priceMatches,
      lastCommitted,
    };
  } finally {
    await client.end();
  }
}
