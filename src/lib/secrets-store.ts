// Server secrets that may be left unset in development: generated once, written into DATA_DIR
// (mode 0600) when the database accepts them, and reused on every start. Several instances must share them: set the
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

export type Secrets = { sessionSecret: string; fiscalTokenKey: string };

/** The secrets in use that were generated just now, and how to write them to DATA_DIR/secrets.json. */
export type Unsaved = { names: (keyof Secrets)[]; save(): void };

/**
 * The environment's secrets, else DATA_DIR/secrets.json's, else new ones. New ones are not written
 * here: the caller saves them once the database has accepted them (src/admin/secret-check.ts), so
 * a refused start leaves no file behind.
 */
export function resolveSecrets(config: Config): { secrets: Secrets; unsaved: Unsaved } {
  const fromEnvironment = {
    sessionSecret: config.restaurantSessionSecret,
    fiscalTokenKey: config.fiscalTokenKey,
  };
  if (fromEnvironment.sessionSecret && fromEnvironment.fiscalTokenKey) {
    const secrets = {
      sessionSecret: fromEnvironment.sessionSecret,
      fiscalTokenKey: fromEnvironment.fiscalTokenKey,
    };
    return { secrets, unsaved: { names: [], save() {} } };
  }
  const stored = readStored(fileOf(config));
  const next = {
    sessionSecret: stored.sessionSecret ?? randomBytes(32).toString('base64url'),
    fiscalTokenKey: stored.fiscalTokenKey ?? randomBytes(32).toString('base64url'),
  };
  const generated = (['sessionSecret', 'fiscalTokenKey'] as const).filter((name) => !stored[name]);
  return {
    secrets: {
      sessionSecret: fromEnvironment.sessionSecret ?? next.sessionSecret,
      fiscalTokenKey: fromEnvironment.fiscalTokenKey ?? next.fiscalTokenKey,
    },
    unsaved: {
      names: generated.filter((name) => !fromEnvironment[name]),
      save: () => {
        if (generated.length) writeStored(config, next);
      },
    },
  };
}
