// What a server runs beside its routes: the webhook delivery loop (every instance claims from the
// same queue) and the periodic purge of old events and deliveries.
import type { FastifyInstance } from 'fastify';
import { startEventPurge } from '../events/purge-job.ts';
import { createWebhookWorker, type WorkerOptions } from './worker.ts';

export function startBackgroundJobs(app: FastifyInstance, overrides: Partial<WorkerOptions> = {}) {
  const { db, config, secrets } = app.ctx;
  const log = (err: unknown) => app.log.error({ err }, 'background job failed');
  const worker = createWebhookWorker({
    db,
    // The key as it is now: a rotation over the admin channel replaces it in ctx.secrets.
    get secretKey() {
      return secrets.fiscalTokenKey;
    },
    allowPrivate: config.webhookAllowPrivate,
    log,
    ...overrides,
  });
  worker.start();
  const purge = startEventPurge(db, config.eventsRetentionDays, log);
  return {
    worker,
    async stop() {
      await Promise.all([purge.stop(), worker.stop()]);
    },
  };
}
