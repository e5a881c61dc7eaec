// Prometheus metrics at /metrics: requests by route and status with latency histograms,
// the database pool, and the process (prom-client's default collectors).
import type { FastifyInstance } from 'fastify';
import { collectDefaultMetrics, Gauge, Histogram, register as moduleMetrics, Registry } from 'prom-client';
import type { DatabaseHandle } from '../db/database.ts';

export function installMetrics(app: FastifyInstance, database: DatabaseHandle): void {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request latency by route and status',
    labelNames: ['method', 'route', 'status_code'],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 15],
    registers: [registry],
  });
  for (const state of ['total', 'idle', 'waiting'] as const) {
    new Gauge({
      name: `db_pool_connections_${state}`,
      help: `Database pool connections (${state})`,
      labelNames: ['database'],
      registers: [registry],
      collect() {
        this.set({ database: database.kind }, database.poolStats()[state]);
      },
    });
  }
  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? 'unmatched';
    duration.observe(
      { method: request.method, route, status_code: String(reply.statusCode) },
      reply.elapsedTime / 1000,
    );
  });
  app.get('/metrics', async (_request, reply) => {
    reply.type(registry.contentType);
    // Module-level counters (e.g. rate_limit_store_errors_total) live in prom-client's default registry.
    return `${await registry.metrics()}\n${await moduleMetrics.metrics()}`;
  });
}
