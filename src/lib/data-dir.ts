// DATA_DIR as comanda creates it: private to the user that runs it. PGlite writes many of its
// files mode 0666, so the folder is what keeps other local users from reading or rewriting them.
import { mkdirSync } from 'node:fs';

/** Creates the folder (and missing parents) mode 0700; an existing folder keeps its mode. */
export function makeDataDir(dataDir: string): void {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
}
