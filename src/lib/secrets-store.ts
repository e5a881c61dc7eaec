// Server secrets that may be left unset in development: generated once into DATA_DIR
// (mode 0600) and reused on every start. Several instances must share them: set the
// environment variables in production.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import writeFileAtomic from 'write-file-atomic';
import type { Config } from '../config.ts';
import { makeDataDir } from './data-dir.ts';

type Stored = { sessionSecret?: string; fiscalTokenKey?: string };

const fileOf = (config: Config) => join(config.dataDir, 'secrets.json');

function readStored(file: string): Stored {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return {};
  }
}

function writeStored(config: Config, stored: Stored): void {
  makeDataDir(config.dataDir);
  // Written aside and renamed (write-file-atomic): a failed write (a full disk) never leaves a
  // truncated file, whose secrets would be generated again and no longer match the database.
  writeFileAtomic.sync(fileOf(config), JSON.stringify(stored), { mode: 0o600 });
}

/** Replaces one generated secret in DATA_DIR (a rotation without the variable set); returns the file. */
export function storeGeneratedSecret(config: Config, name: keyof Stored, value: string): string {
  writeStored(config, { ...readStored(fileOf(config)), [name]: value });
  return fileOf(config);
}

export function resolveSecrets(config: Config): { sessionSecret: string; fiscalTokenKey: string } {
  if (config.restaurantSessionSecret && config.fiscalTokenKey) {
    return { sessionSecret: config.restaurantSessionSecret, fiscalTokenKey: config.fiscalTokenKey };
  }
  const stored = readStored(fileOf(config));
  const next = {
    sessionSecret: stored.sessionSecret ?? randomBytes(32).toString('base64url'),
    fiscalTokenKey: stored.fiscalTokenKey ?? randomBytes(32).toString('base64url'),
  };
  if (next.sessionSecret !== stored.sessionSecret || next.fiscalTokenKey !== stored.fiscalTokenKey) {
    writeStored(config, next);
  }
  return {
    sessionSecret: config.restaurantSessionSecret ?? next.sessionSecret,
    fiscalTokenKey: config.fiscalTokenKey ?? next.fiscalTokenKey,
  };
}
