// What every administrative command receives, and the error that is a user's mistake. Kept apart
// from commands.ts so the command files it registers can import them.
import type { Config } from '../config.ts';
import type { Db } from '../db/database.ts';
import type { ImportProgress } from '../import/import.ts';

export type CommandContext = {
  db: Db;
  config: Config;
  /** The process's secrets: a rotation replaces fiscalTokenKey in place. */
  secrets: { sessionSecret: string; fiscalTokenKey: string };
  /** Migrations the CLI applied when it opened the database itself. */
  applied?: string[];
  onProgress?: (progress: ImportProgress) => void;
};

/** A mistake of the user (a bad argument, a missing restaurant): shown as its message alone. */
export class CommandError extends Error {}
