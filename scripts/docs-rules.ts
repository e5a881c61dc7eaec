// The rules the repository's Markdown keeps (scripts/check-docs.ts runs them): every link stays in
// the repository and resolves, down to the heading it names; the README and the src/ folder READMEs
// keep their length; nothing narrates how the project came to be.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

export const README_MAX_LINES = 300;
export const FOLDER_README_MAX_LINES = 15;
// Written in pieces so that the repository's own text search for these phrases finds none here.
export const NARRATION = new RegExp(
  ['[Ss]ession [0-9]+', 'the[ ]lead', '[Oo]pen[ ]points', 'decided[ ]here', 'now[ ]exports'].join('|'),
);

/** Text outside fenced code blocks and inline code, where links and headings are read. */
function prose(text: string): string {
  return text.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '').replace(/`[^`\n]*`/g, '');
}

/** GitHub's anchors for the headings of a page (`## Memory: the flags` -> `memory-the-flags`). */
export function headingAnchors(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  const headings = text.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '').matchAll(/^#{1,6}\s+(.+)$/gm);
  for (const [, heading] of headings) {
    const base = heading
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\- _]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count ? `${base}-${count}` : base);
  }
  return anchors;
}

function linkProblems(root: string, file: string, text: string): string[] {
  const problems: string[] = [];
  for (const [, target] of prose(text).matchAll(/!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) {
      problems.push(`${file}: ${target} points outside the repository`);
      continue;
    }
    const [path, anchor] = target.split('#', 2);
    const full = path ? resolve(root, dirname(file), decodeURIComponent(path)) : resolve(root, file);
    if (relative(root, full).startsWith('..')) {
      problems.push(`${file}: ${target} points outside the repository`);
    } else if (!existsSync(full)) {
      problems.push(`${file}: ${target} does not exist`);
    } else if (anchor && full.endsWith('.md') && !headingAnchors(readFileSync(full, 'utf8')).has(anchor)) {
      problems.push(`${file}: ${target} names no heading of ${relative(root, full)}`);
    }
  }
  return problems;
}

function lengthProblem(file: string, text: string): string | undefined {
  const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
  const max =
    file === 'README.md'
      ? README_MAX_LINES
      : /^src\/(.+\/)?README\.md$/.test(file)
        ? FOLDER_README_MAX_LINES
        : undefined;
  return max !== undefined && lines > max ? `${file}: ${lines} lines, at most ${max}` : undefined;
}

/** Every problem of the given Markdown files (paths relative to `root`); none: an empty list. */
export function checkDocs(root: string, files: string[]): string[] {
  const absoluteRoot = resolve(root);
  return files.flatMap((file) => {
    const text = readFileSync(join(absoluteRoot, file), 'utf8');
    const problems = linkProblems(absoluteRoot, file, text);
    const length = lengthProblem(file, text);
    if (length) problems.push(length);
    text.split('\n').forEach((line, i) => {
      if (NARRATION.test(line)) problems.push(`${file}:${i + 1}: narrates history: ${line.trim()}`);
    });
    return problems;
  });
}
