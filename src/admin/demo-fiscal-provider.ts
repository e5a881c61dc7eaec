// The demo offline: a server on the demo data with FISCAL_PROVIDER_URL not set runs the fiscal
// simulator in its own process (127.0.0.1, a port of the system's choosing) and points the NF-e
// detail at it, so the demo's notes open without the internet. The rule for "the demo data": every
// brand that holds a fiscal token is a demo brand (10, 11, 20) holding that brand's demo token, and
// at least one does. Only a demo token is sent to the simulator: a brand given a token of its own
// while it runs queries FISCAL_PROVIDER_URL's default, and a database with one brand of its own at
// start keeps the production provider alone.
import type { Config } from '../config.ts';
import type { AppContext } from '../context.ts';
import type { Db } from '../db/database.ts';
import { DEMO_FISCAL_TOKENS } from '../demo/demo.ts';
import { type FiscalSimulator, startFiscalSimulator } from '../fiscal-simulator/fiscal-simulator.ts';
import { buildProviderDocument } from '../fiscal-simulator/simulator-documents.ts';
import { decryptSecret } from '../lib/encryption.ts';

const DEMO_BRANDS = Object.keys(DEMO_FISCAL_TOKENS).length;

/** Whether the database holds the demo data (the rule above). */
export async function holdsDemoData(db: Db, fiscalTokenKey: string): Promise<boolean> {
  // Brand ids are unique: past DEMO_BRANDS brands with a token, one of them is not the demo's.
  const brands = await db
    .selectFrom('brands')
    .select(['id', 'fiscal_token_encrypted'])
    .where('fiscal_token_encrypted', 'is not', null)
    .limit(DEMO_BRANDS + 1)
    .execute();
  if (brands.length === 0 || brands.length > DEMO_BRANDS) return false;
  return brands.every((brand) => {
    const expected = DEMO_FISCAL_TOKENS[brand.id];
    try {
      return (
        expected !== undefined && decryptSecret(brand.fiscal_token_encrypted!, fiscalTokenKey) === expected
      );
    } catch {
      return false;
    }
  });
}

/** The provider's document of a note of the database, looked up when the simulator is asked. */
async function documentOf(db: Db, accessKey: string) {
  const note = await db
    .selectFrom('nfe_received')
    .select([
      'access_key',
      'issuer_name',
      'issuer_document',
      'total',
      'issued_at',
      'situation',
      'complete',
      'manifestation_type',
      'version',
      'digest',
      'series',
      'state',
      'type',
    ])
    .where('access_key', '=', accessKey)
    .orderBy('id')
    .limit(1)
    .executeTakeFirst();
  if (!note) return undefined;
  const issued_at = new Date(note.issued_at).toISOString();
  return buildProviderDocument({ ...note, issued_at }, { summaryOnly: !note.complete });
}

export type DemoFiscalProvider = {
  /** Starts the simulator when the rule holds and FISCAL_PROVIDER_URL is not set; its URL, or undefined. */
  start(): Promise<string | undefined>;
  url(): string | undefined;
  /** Stops the simulator (its connections cut at once); after the app has closed. */
  close(): Promise<void>;
};

export function demoFiscalProvider(
  ctx: Pick<AppContext, 'db' | 'secrets' | 'fiscalSimulator'> & {
    config: Pick<Config, 'fiscalProviderUrlSet'>;
  },
  log: (url: string) => void = () => {},
): DemoFiscalProvider {
  let running: FiscalSimulator | undefined;
  let starting: Promise<void> | undefined;
  const begin = async () => {
    if (ctx.config.fiscalProviderUrlSet) return;
    if (!(await holdsDemoData(ctx.db, ctx.secrets.fiscalTokenKey))) return;
    const tokens = new Set(Object.values(DEMO_FISCAL_TOKENS));
    running = await startFiscalSimulator({
      host: '127.0.0.1',
      port: 0,
      notes: (accessKey) => documentOf(ctx.db, accessKey),
      tokens,
    });
    ctx.fiscalSimulator = { url: running.url, tokens };
    log(running.url);
  };
  return {
    async start() {
      // Once running it stays; a check that found no demo data runs again when asked (after a demo load).
      if (!running) {
        starting ??= begin().finally(() => {
          starting = undefined;
        });
        await starting;
      }
      return running?.url;
    },
    url: () => running?.url,
    async close() {
      await starting?.catch(() => {});
      const simulator = running;
      running = undefined;
      if (!simulator) return;
      if (ctx.fiscalSimulator?.url === simulator.url) ctx.fiscalSimulator = undefined;
      await simulator.close();
    },
  };
}
