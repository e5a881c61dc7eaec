// A detail-pool.ts worker: one provider body in, its mapped parts out (plain data and JSON text).
import { type MappedProviderBody, mapProviderBody } from './provider-mapping.ts';

export default function mapInWorker(body: Uint8Array): MappedProviderBody {
  return mapProviderBody(body);
}
