// `.env` in the working directory, loaded by the CLI and the server before the configuration is
// read (Node's own parser, `util.parseEnv`): a variable already in the environment wins. A byte
// order mark (an editor's UTF-8 with BOM) is not part of the first name. Node skips a line it
// cannot read without a word, so each line is checked first: a malformed file is one clear line.
import { readFileSync } from 'node:fs';
import { parseEnv } from 'node:util';

export class EnvFileError extends Error {}

const ASSIGNMENT = /^\s*(export\s+)?[A-Za-z_][A-Za-z0-9_.-]*\s*=/;

/** The 1-based number of the first line that is neither blank, a comment nor NAME=value. */
function firstMalformedLine(text: string): number | undefined {
  const lines = text.split(/\r?\n/);
  let open: string | undefined; // the quote of a value that continues on the next lines
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (open) {
      if (line.includes(open)) open = undefined;
      continue;
    }
    if (/^\s*(#.*)?$/.test(line)) continue;
    if (!ASSIGNMENT.test(line)) return i + 1;
    const value = line.slice(line.indexOf('=') + 1).trimStart();
    const quote = value[0];
    // A value continues on the next lines only when its quote closes on one of them; a quote that
    // never closes is, to Node, part of a one-line value.
    if (
      (quote === '"' || quote === "'" || quote === '`') &&
      !value.slice(1).includes(quote) &&
      lines.slice(i + 1).some((next) => next.includes(quote))
    )
      open = quote;
  }
  return undefined;
}

export function loadEnvFile(path = '.env'): boolean {
  let text: string;
  try {
    text = readFileSync(path, 'utf8').replace(/^\uFEFF/, '');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return false;
    throw new EnvFileError(`cannot read ${path}: ${code ?? (err as Error).message}`);
  }
  const bad = firstMalformedLine(text);
  if (bad !== undefined) throw new EnvFileError(`${path} line ${bad} is not NAME=value (nor a # comment)`);
  for (const [name, value] of Object.entries(parseEnv(text))) {
    if (process.env[name] === undefined) process.env[name] = value;
  }
  return true;
}
