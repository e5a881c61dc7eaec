// The fiscal provider of the NF-e detail scenario: the project's simulator (fiscal-simulator.ts)
// serving the 1 MiB and the 45 KiB documents of the detail notes, without its per-minute limit. A child of the
// bench (child-process.ts), so the provider's own time is measured in its own process.
import { startFiscalSimulator } from '../src/fiscal-simulator/fiscal-simulator.ts';
import { DETAIL_NOTE, detailDocument, FISCAL_TOKEN, TYPICAL_NOTE, typicalDocument } from './data-nfe.ts';

const simulator = await startFiscalSimulator({
  notes: new Map([
    // Served as text made once: the simulator would otherwise write 1 MiB of JSON per request on
    // the cores the server is measured on.
    [DETAIL_NOTE.access_key, JSON.stringify(detailDocument())],
    [TYPICAL_NOTE.access_key, JSON.stringify(typicalDocument())],
  ]),
  tokens: new Set([FISCAL_TOKEN]),
  requestsPerMinute: Number.MAX_SAFE_INTEGER,
});
process.send!(simulator.url);
process.once('SIGTERM', () => simulator.close().then(() => process.exit(0)));
// The bench stopped without stopping us.
process.once('disconnect', () => process.exit(0));
