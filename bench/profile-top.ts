// The top self-time functions of the .cpuprofile files `--cpu-prof` wrote (the bench's
// --cpu-prof option, or any folder): `node bench/profile-top.ts <dir-or-file> [count]`.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

type ProfileNode = {
  id: number;
  hitCount?: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
};
type Profile = { nodes: ProfileNode[]; startTime: number; endTime: number };

const ROOT = new URL('..', import.meta.url).pathname;

function where(url: string, line: number): string {
  const path = url.replace(/^file:\/\//, '');
  const short = path.startsWith(ROOT) ? relative(ROOT, path) : path || '(native)';
  return `${short.replace(/^node_modules\//, '~/')}:${line + 1}`;
}

/** Self time per function in ms, most first, over every profile given. */
export function topFunctions(target: string, count = 25): string[] {
  const files = statSync(target).isDirectory()
    ? readdirSync(target)
        .filter((f) => f.endsWith('.cpuprofile'))
        .map((f) => join(target, f))
    : [target];
  const self = new Map<string, number>();
  let busy = 0;
  for (const file of files) {
    const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
    const hits = profile.nodes.reduce((sum, n) => sum + (n.hitCount ?? 0), 0);
    const msPerHit = (profile.endTime - profile.startTime) / 1000 / Math.max(1, hits);
    for (const node of profile.nodes) {
      const { functionName, url, lineNumber } = node.callFrame;
      if (functionName === '(idle)' || !node.hitCount) continue;
      const key = `${functionName || '(anonymous)'} ${url ? where(url, lineNumber) : ''}`.trim();
      self.set(key, (self.get(key) ?? 0) + node.hitCount * msPerHit);
      busy += node.hitCount * msPerHit;
    }
  }
  return [...self]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(
      ([key, ms]) => `${ms.toFixed(0).padStart(7)} ms ${((ms / busy) * 100).toFixed(1).padStart(5)}%  ${key}`,
    );
}

if (import.meta.main) {
  const [target, count] = process.argv.slice(2);
  if (!target) throw new Error('usage: node bench/profile-top.ts <dir-or-file.cpuprofile> [count]');
  console.log(topFunctions(target, Number(count ?? 25)).join('\n'));
}
