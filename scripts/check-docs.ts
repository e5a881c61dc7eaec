// `npm run lint:docs`: checks every Markdown file of the repository (tracked or new, not ignored)
// against scripts/docs-rules.ts and prints each problem; exits 1 when there is one.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { checkDocs } from './docs-rules.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '--', '*.md'], {
  cwd: root,
  encoding: 'utf8',
})
  .split('\n')
  .filter((file) => file && !file.startsWith('node_modules/'));
const problems = checkDocs(root, files);
for (const problem of problems) process.stderr.write(`${problem}\n`);
process.stdout.write(`${files.length} Markdown files checked, ${problems.length} problems\n`);
process.exitCode = problems.length ? 1 : 0;
