// Server secrets that may be left unset in development: generated once into DATA_DIR
// (mode 0600) and reused on every start. Several instances must share them: set the
// environment variables in production.
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../config.ts';

type Stored = { sessionSecret?: string; fiscalTokenKey?: string };

export function resolveSecrets(config: Config): { sessionSecret: string; fiscalTokenKey: string } {
  if (config.restaurantSessionSecret && config.fiscalTokenKey) {
    return { sessionSecret: config.restaurantSessionSecret, fiscalTokenKey: config.fiscalTokenKey };
  }
  const file = join(config.dataDir, 'secrets.json');
  let stored: Stored = {};
  try {
    stored = JSON.parse(readFileSync(file, 'utf8'));
  } catch {}
  const next = {
    sessionSecret: stored.sessionSecret ?? randomBytes(32).toString('base64url'),
    fiscalTokenKey: stored.fiscalTokenKey ?? randomBytes(32).toString('base64url'),
  };
  if (next.sessionSecret !== stored.sessionSecret || next.fiscalTokenKey !== stored.fiscalTokenKey) {
    mkdirSync(config.dataDir, { recursive: true });
    writeFileSync(file, JSON.stringify(next), { mode: 0o600 });
  }
  return {
    sessionSecret: config.restaurantSessionSecret ?? next.sessionSecret,
    fiscalTokenKey: config.fiscalTokenKey ?? next.fiscalTokenKey,
  };
}
