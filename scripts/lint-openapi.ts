// CI check of the generated OpenAPI document: builds the app on an in-memory PGlite, writes
// GET /openapi.json to node_modules/.cache/comanda/openapi.json and lints it with Redocly
// (redocly.yaml). Exits with Redocly's status. `--out <file>` also keeps a copy of the document.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildApp } from '../src/app.ts';
import { parseConfig } from '../src/config.ts';
import { openDatabase } from '../src/db/database.ts';

async function generateDocument(): Promise<string> {
  const config = parseConfig({ ...process.env, LOG_LEVEL: 'silent', DATABASE_URL: 'memory://' });
  const database = await openDatabase({ databaseUrl: 'memory://' });
  try {
    const secret = () => randomBytes(32).toString('base64url');
    const app = await buildApp({
      config,
      database,
      db: database.db,
      secrets: { sessionSecret: secret(), fiscalTokenKey: secret() },
    });
    const response = await app.inject('/openapi.json');
    await app.close();
    if (response.statusCode !== 200) throw new Error(`GET /openapi.json answered ${response.statusCode}`);
    return JSON.stringify(JSON.parse(response.body), null, 2);
  } finally {
    await database.close();
  }
}

const document = await generateDocument();
const out = process.argv.indexOf('--out');
if (out > 0 && process.argv[out + 1]) writeFileSync(process.argv[out + 1], document);

const root = new URL('..', import.meta.url).pathname;
const file = 'node_modules/.cache/comanda/openapi.json';
mkdirSync(join(root, 'node_modules/.cache/comanda'), { recursive: true });
writeFileSync(join(root, file), document);
const lint = spawnSync(
  'npx',
  ['--no-install', '@redocly/cli', 'lint', file, '--config', join(root, 'redocly.yaml'), '--format=stylish'],
  {
    stdio: 'inherit',
    cwd: root,
    env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
  },
);
process.exit(lint.status ?? 1);
