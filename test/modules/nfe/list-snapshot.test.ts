// GET /v1/nfe-received reads the brands, the notes (with their joined brands) and nfe_version in
// one snapshot (nfe-service.ts readReceivedNfeList). A plugin on the reader's database holds a
// write, committed on another connection, between the brand statement and the notes statement:
// without one snapshot the body shows one brand under two names and is kept under a version it
// does not match.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import type { KyselyPlugin } from 'kysely';
import { sql } from 'kysely';
import { readRestaurantState, restaurantOf } from '../../../src/db/restaurant-state.ts';
import { createNfeListReader } from '../../../src/modules/nfe/list-cache.ts';
import { createTestDatabase, testDatabaseUrl } from '../../support/database.ts';
import { insertBrand, insertNote, insertRestaurant } from '../../support/nfe-world.ts';

const JANUARY = { start_date: '2026-01-01T00:00:00Z', end_date: '2026-01-31T23:59:59Z' };
const KEY = 'test-fiscal-token-key-of-at-least-32-chars';

test('the NF-e list is read in one snapshot with its nfe_version', async (t) => {
  const database = await createTestDatabase();
  t.after(() => database.close());
  const db = database.db;
  const main = await insertRestaurant(db, 'Main');
  const bella = await insertBrand(db, main, KEY, { name: 'Bella', isDefault: true });
  await insertNote(db, main, { brand_id: bella });
  await insertNote(db, main, { issued_at: '2026-01-05T08:00:00Z' });
  const nfeVersion = async () => (await readRestaurantState(db, main))?.nfe_version as number;

  await t.test(
    'a write committed between the brand and the notes statements is in neither part',
    async () => {
      let pendingWrite: Promise<unknown> | undefined;
      let armed = true;
      // After the default brand's statement (its rows have a cnpj and no access key), a rename
      // committed on another connection (PostgreSQL), or queued behind the reader (PGlite, one
      // connection: within a transaction it waits for the commit). The wait is bounded: on
      // PostgreSQL the write must have committed by its end (a loaded machine's slow commit would
      // otherwise come after the notes' statement, and the test prove nothing), on PGlite 1 s.
      const hold: KyselyPlugin = {
        transformQuery: (args) => args.node,
        async transformResult(args) {
          const row = args.result.rows[0] as Record<string, unknown> | undefined;
          if (armed && row && 'cnpj' in row && !('access_key' in row)) {
            armed = false;
            pendingWrite = sql`update brands set name = 'Renomeada' where id = ${bella}`.execute(db);
            if (!testDatabaseUrl) await Promise.race([pendingWrite, delay(1000)]);
            else {
              const committed = await Promise.race([
                pendingWrite.then(() => true),
                delay(30_000, false, { ref: false }),
              ]);
              assert.ok(committed, 'the write did not commit within 30 s');
            }
          }
          return args.result;
        },
      };
      const read = createNfeListReader(db.withPlugin(hold));
      const before = await nfeVersion();
      const { body, current } = await read(restaurantOf(db, main), JANUARY);
      assert.ok(pendingWrite, 'the write was made between the statements');
      await pendingWrite;
      assert.ok((await nfeVersion()) > before, 'the write moved nfe_version');
      const names = (
        JSON.parse(body.toString()) as { brand_id: number | null; brand: { name: string } }[]
      ).map((note) => `${note.brand_id ?? 'unlinked'}: ${note.brand.name}`);
      assert.deepEqual(
        names,
        ['unlinked: Bella', `${bella}: Bella`],
        'one brand, one name: the first snapshot',
      );
      assert.equal(current, true, 'the body is exact for the version the request read');
      // The next read sees the write, in both parts.
      const after = await read(restaurantOf(db, main), JANUARY);
      assert.equal((after.body.toString().match(/"name":"Renomeada"/g) ?? []).length, 2);
    },
  );

  await t.test(
    'a list read at a later version than the request is kept under its own and says so',
    async () => {
      const read = createNfeListReader(db);
      const real = await readRestaurantState(db, main);
      assert.ok(real);
      const stale = { id: main, state: async () => ({ ...real, nfe_version: real.nfe_version - 1 }) };
      const old = await read(stale, JANUARY);
      assert.equal(old.current, false, 'the body is of a later version than the tag');
      // Kept under the version it was read at: a request at that version is answered from memory.
      const again = await read(restaurantOf(db, main), JANUARY);
      assert.equal(again.current, true);
      assert.ok(again.body.equals(old.body));
    },
  );
});
