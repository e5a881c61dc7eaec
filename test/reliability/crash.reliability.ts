// `kill -9` of a server in the middle of a stream of bulk edits, and of `comanda import` in the
// middle of a big file: afterwards every product holds one whole batch (never part of one), and
// the import is either entirely there or not at all.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import pg from 'pg';
import { signSession } from '../../src/modules/auth/session-token.ts';
import { reliabilityWorld } from '../security/world.ts';
import {
  bearer,
  cli,
  freshDatabase,
  http,
  importFile,
  SECRETS,
  startCli,
  startInstance,
  tempDir,
} from './harness.ts';
import { checkBatches, startLoad, summarise } from './load.ts';
import { missingServices, SHARED_POSTGRES } from './services.ts';

const SKIP = await missingServices();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test('kill -9 of a server during a stream of bulk edits', { skip: SKIP, timeout: 180_000 }, async (t) => {
  const databaseUrl = await freshDatabase(t, SHARED_POSTGRES);
  const { ids, data } = reliabilityWorld({ products: 100, keys: 0 });
  await importFile(t, databaseUrl, data);
  const env = { DATABASE_URL: databaseUrl, RATE_LIMIT_PER_MINUTE: '1000000', DATA_DIR: tempDir(t) };
  const session = signSession(ids.a.restaurant, 3600, SECRETS.RESTAURANT_SESSION_SECRET);
  let instance = await startInstance(t, env);
  const port = Number(new URL(instance.url).port);
  const notes: string[] = [];
  let inFlightAtKill = 0;
  for (let round = 1; round <= 3; round++) {
    const load = startLoad({
      urls: [instance.url],
      headers: () => bearer(session),
      bulkIds: ids.a.products,
      readers: 0,
      writers: 4,
      pauseMs: 0,
    });
    await sleep(1500);
    instance.child.kill('SIGKILL');
    await instance.exited;
    await load.stop();
    const cut = load.samples.filter((s) => s.status === 0).length;
    inFlightAtKill += cut;
    const started = Date.now();
    instance = await startInstance(t, env, port);
    notes.push(
      `round ${round}: ${JSON.stringify(summarise(load.samples))}, ready again ${Date.now() - started} ms after the kill`,
    );
    const check = await checkBatches(databaseUrl, ids.a.restaurant, ids.a.products);
    assert.deepEqual(check.partial, [], `round ${round}: batches half written`);
    assert.ok(check.uniform, `round ${round}: the products do not all hold one batch`);
    assert.equal(check.finalBatch, check.lastCommitted);
    for (const s of load.samples.filter((s) => s.status === 200))
      assert.ok(check.committed.has(s.batch!), `batch ${s.batch} answered 200 but is not there`);
  }
  t.diagnostic(notes.join('; '));
  assert.ok(inFlightAtKill > 0, 'no request was in flight at any kill');
  assert.equal(
    (await http(`${instance.url}/v1/products/${ids.a.products[0]}`, { headers: bearer(session) })).status,
    200,
  );
});

test('kill -9 of `comanda import` in the middle of a big file', {
  skip: SKIP,
  timeout: 240_000,
}, async (t) => {
  const databaseUrl = await freshDatabase(t, SHARED_POSTGRES);
  const { ids, data } = reliabilityWorld({ products: 50, keys: 0 });
  await importFile(t, databaseUrl, data);
  const restaurant = ids.a.restaurant;
  const base = ids.a.cashFlow + 100_000;
  const big = {
    products: (data.products as { restaurant_id: number; name: string }[])
      .filter((p) => p.restaurant_id === restaurant)
      .map((p) => ({ ...p, name: `Imported ${p.name}` })),
    cash_flows: Array.from({ length: 60_000 }, (_, i) => ({
      id: base + i,
      restaurant_id: restaurant,
      entry_type: 'standalone',
      description: `Imported entry ${i}`,
      value: (i % 1000) + 0.5,
      due_date: '2026-03-10',
      is_earning: i % 2 === 0,
    })),
  };
  const file = join(tempDir(t), 'big.json');
  writeFileSync(file, JSON.stringify(big));
  const admin = new pg.Client({ connectionString: databaseUrl });
  admin.on('error', () => {}); // the database is dropped with (force) after the test
  await admin.connect();
  t.after(() => admin.end());
  const openTransactions = async () =>
    (
      await admin.query(
        `select extract(epoch from now() - xact_start) * 1000 as age from pg_stat_activity
         where datname = current_database() and pid <> pg_backend_pid() and xact_start is not null`,
      )
    ).rows.map((r) => Number(r.age));
  const state = async () => {
    const flows = await admin.query('select count(*)::int as n from cash_flows where id >= $1 and id < $2', [
      base,
      base + 60_000,
    ]);
    const renamed = await admin.query(
      `select count(*)::int as n from products where restaurant_id = $1 and name like 'Imported %'`,
      [restaurant],
    );
    return { flows: flows.rows[0].n, renamed: renamed.rows[0].n };
  };

  const run = startCli(['import', file, '--json'], { DATABASE_URL: databaseUrl });
  const started = Date.now();
  let killedAfter = 0;
  while (Date.now() - started < 60_000 && run.child.exitCode === null) {
    if ((await openTransactions()).some((age) => age > 500)) {
      run.child.kill('SIGKILL');
      killedAfter = Date.now() - started;
      break;
    }
    await sleep(50);
  }
  await run.done;
  assert.ok(killedAfter > 0, 'the import finished before it could be killed: make the file bigger');
  const gone = Date.now();
  while ((await openTransactions()).length && Date.now() - gone < 60_000) await sleep(100);
  const rolledBackMs = Date.now() - gone;
  const afterKill = await state();
  assert.deepEqual(afterKill, { flows: 0, renamed: 0 }, 'the killed import left part of itself');

  const again = Date.now();
  const whole = await cli(['import', file, '--json'], { DATABASE_URL: databaseUrl });
  assert.equal(whole.code, 0, whole.stderr);
  assert.deepEqual(await state(), { flows: 60_000, renamed: 50 });
  t.diagnostic(
    `import of 60,000 entries and 50 products killed ${killedAfter} ms after start; its transaction was gone ${rolledBackMs} ms later ` +
      `and nothing of it was left; the same file then imported whole in ${Date.now() - again} ms`,
  );
});
