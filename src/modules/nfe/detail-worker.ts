// A detail-pool.ts worker: one provider body in, its mapped parts out. It runs below the event
// loop's priority (a nice value per thread on Linux), so busy cores serve the main thread first.
import { setPriority } from 'node:os';
import { workerData } from 'piscina';
import { mapProviderBody } from './provider-mapping.ts';

if (process.platform === 'linux') setPriority(workerData.nice);

export default (body: Uint8Array) => mapProviderBody(body);
