import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { test } from 'node:test';
import { buildProviderDocument } from '../../../src/fiscal-simulator/simulator-documents.ts';
import {
  createDetailPool,
  WORKER_NICE,
  WORKER_THRESHOLD_BYTES,
} from '../../../src/modules/nfe/detail-pool.ts';
import { mapProviderBody } from '../../../src/modules/nfe/provider-mapping.ts';

const note = {
  access_key: '35260112345678000199550010000012341000012345',
  issuer_name: 'Distribuidora Sul',
  issuer_document: '12345678000199',
  total: '300.00',
  issued_at: '2026-01-10T13:00:00Z',
};

/** A provider document of about `bytes`: the simulator's, with that many items. */
function documentOf(bytes: number): Buffer {
  const document = buildProviderDocument(note) as { requisicao_nota_fiscal: { itens: object[] } };
  const [item] = document.requisicao_nota_fiscal.itens;
  const count = Math.ceil(bytes / JSON.stringify(item).length);
  document.requisicao_nota_fiscal.itens = Array.from({ length: count }, (_, i) => ({
    ...item,
    numero_item: String(i + 1),
  }));
  return Buffer.from(JSON.stringify(document));
}

const large = documentOf(2 * WORKER_THRESHOLD_BYTES);
const open = () => new AbortController().signal;

test('a body over the threshold is mapped in a worker, to what mapping it here gives', async (t) => {
  const pool = createDetailPool({ workers: 1 });
  t.after(() => pool.close());
  assert.deepEqual(await pool.mapBody(large, open()), mapProviderBody(large));
  assert.equal(pool.stats().completed, 1);
});

test('the pool never runs more workers than its bound', async (t) => {
  const pool = createDetailPool({ workers: 2 });
  t.after(() => pool.close());
  const answers = await Promise.all(Array.from({ length: 5 }, () => pool.mapBody(large, open())));
  assert.equal(answers.length, 5);
  assert.equal(pool.stats().completed, 5);
  assert.ok(pool.stats().threads <= 2, `${pool.stats().threads} workers`);
});

test('a body under the threshold is mapped here, without a worker', async (t) => {
  const pool = createDetailPool({ workers: 1 });
  t.after(() => pool.close());
  const small = documentOf(WORKER_THRESHOLD_BYTES / 4);
  assert.deepEqual(await pool.mapBody(small, open()), mapProviderBody(small));
  assert.deepEqual(pool.stats(), { completed: 0, threads: 0 });
});

test("a worker still mapping when the exchange's time runs out fails its task, and the pool maps the next body", async (t) => {
  const pool = createDetailPool({ workers: 1 });
  t.after(() => pool.close());
  const running = new AbortController();
  const task = pool.mapBody(large, running.signal);
  setImmediate(() => running.abort());
  await assert.rejects(task, { name: 'AbortError' });
  await assert.rejects(pool.mapBody(large, AbortSignal.abort()), { name: 'AbortError' });
  assert.equal((await pool.mapBody(large, open())).summary.total, '300.00');
});

test('a worker whose body fails to parse or to check rejects, and the pool maps the next body', async (t) => {
  const pool = createDetailPool({ workers: 1 });
  t.after(() => pool.close());
  const invalid = Buffer.concat([large.subarray(0, -1)]);
  await assert.rejects(pool.mapBody(invalid, open()), { name: 'SyntaxError' });
  const notDocument = Buffer.from(JSON.stringify({ padding: 'x'.repeat(WORKER_THRESHOLD_BYTES) }));
  await assert.rejects(pool.mapBody(notDocument, open()), /nome_emitente is not a string/);
  assert.equal((await pool.mapBody(large, open())).summary.total, '300.00');
});

/** The nice value of each thread of this process (Linux: /proc/self/task/<tid>/stat, field 19). */
function threadNiceness(): number[] {
  return readdirSync('/proc/self/task').map((tid) => {
    const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
  });
}

test('workers run below the priority of the event loop', {
  skip: process.platform !== 'linux',
}, async (t) => {
  const pool = createDetailPool({ workers: 1 });
  t.after(() => pool.close());
  assert.equal(threadNiceness().includes(WORKER_NICE), false);
  await pool.mapBody(large, open());
  assert.equal(threadNiceness().filter((nice) => nice === WORKER_NICE).length, 1);
  assert.equal(
    readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ')[16],
    '0',
    'the main thread is not',
  );
});
