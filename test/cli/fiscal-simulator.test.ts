// `comanda fiscal-simulator`: serves the NF-e of an import file (default: the demo) with the
// provider's protocol, accepting the file's brand fiscal tokens.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { buildDemoData } from '../../src/demo/demo.ts';
import { world } from '../import/world.ts';
import { cliEnv, runCli, tempDir } from './cli-process.ts';

const ROOT = new URL('../../', import.meta.url).pathname;

async function simulator(
  t: { after(fn: () => void): void },
  args: string[],
): Promise<{ url: string; notes: number; tokens: number }> {
  const child = spawn(
    process.execPath,
    ['src/cli.ts', 'fiscal-simulator', '--port', '0', '--json', ...args],
    {
      cwd: ROOT,
      env: cliEnv('/nonexistent'),
    },
  );
  t.after(() => child.kill('SIGTERM'));
  let out = '';
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (chunk) => {
      out += chunk;
      if (out.includes('\n}\n')) resolve(JSON.parse(out));
    });
    child.on('exit', (code) => reject(new Error(`exited ${code}: ${out}`)));
  });
}

const basic = (token: string) => ({ authorization: `Basic ${Buffer.from(`${token}:`).toString('base64')}` });

test('the fiscal simulator command', async (t) => {
  await t.test('serves the demo notes to the demo brands tokens, summary-only until complete', async () => {
    const sim = await simulator(t, []);
    assert.deepEqual([sim.notes, sim.tokens], [40, 3]);
    const notes = buildDemoData().nfe_received as { access_key: string; complete: boolean }[];
    const complete = notes.find((n) => n.complete)!;
    const res = await fetch(`${sim.url}/v2/nfes_recebidas/${complete.access_key}.json?completa=1`, {
      headers: basic('demo-fiscal-token-cantina-bella'),
    });
    assert.equal(res.status, 200);
    const body = (await res.json()) as Record<string, unknown>;
    assert.equal(body.chave_nfe, complete.access_key);
    assert.ok(body.requisicao_nota_fiscal);
    const summary = notes.find((n) => !n.complete)!;
    const partial: any = await (
      await fetch(`${sim.url}/v2/nfes_recebidas/${summary.access_key}.json?completa=1`, {
        headers: basic('demo-fiscal-token-sabor-do-norte'),
      })
    ).json();
    assert.equal(partial.nfe_completa, false);
    const refused = await fetch(`${sim.url}/v2/nfes_recebidas/${complete.access_key}.json`, {
      headers: basic('wrong'),
    });
    assert.equal(refused.status, 403);
  });

  await t.test('serves the notes of an import file given with --data', async () => {
    const dir = tempDir(t);
    const file = join(dir, 'world.json');
    writeFileSync(file, JSON.stringify(world()));
    const sim = await simulator(t, ['--data', file]);
    assert.deepEqual([sim.notes, sim.tokens], [1, 1]);
    const key = world().nfe_received[0].access_key;
    const res = await fetch(`${sim.url}/v2/nfes_recebidas/${key}.json`, { headers: basic('tok-bella') });
    assert.equal(res.status, 200);
    const unknown = await fetch(`${sim.url}/v2/nfes_recebidas/${'1'.repeat(44)}.json`, {
      headers: basic('tok-bella'),
    });
    assert.equal(unknown.status, 404);
  });

  await t.test('a --data file breaking the format is refused with its problems', async () => {
    const dir = tempDir(t);
    const file = join(dir, 'bad.json');
    writeFileSync(file, JSON.stringify({ nfe_received: [{ id: 1 }] }));
    const result = await runCli(['fiscal-simulator', '--data', file], cliEnv(dir));
    assert.equal(result.code, 1);
    assert.match(
      result.stderr,
      /^error: .*bad\.json does not follow the import format \(\d+ problems\):\n {2}nfe_received\[0\]\.restaurant_id: is required\n/,
    );
  });

  await t.test('a --port that is not a port is a plain user error', async () => {
    const dir = tempDir(t);
    const result = await runCli(['fiscal-simulator', '--port', 'abc'], cliEnv(dir));
    assert.equal(result.code, 1);
    assert.equal(result.stderr, 'error: --port must be a whole number from 0 to 65535 (got "abc")\n');
  });
});
