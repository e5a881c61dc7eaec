// The catalog module's routes, registered by app.ts.
import type { FastifyInstance } from 'fastify';
import { historyRoutes } from './history-routes.ts';
import { readRoutes } from './read-routes.ts';
import { writeRoutes } from './write-routes.ts';

export async function catalogRoutes(app: FastifyInstance): Promise<void> {
  readRoutes(app);
  writeRoutes(app);
  historyRoutes(app);
}
