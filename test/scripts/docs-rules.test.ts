import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { checkDocs, headingAnchors } from '../../scripts/docs-rules.ts';

/** A repository of the given files in a temporary folder; returns its root. */
function repository(t: { after(fn: () => void): void }, files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'comanda-docs-'));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

const lines = (n: number) => `${Array.from({ length: n }, (_, i) => `line ${i + 1}`).join('\n')}\n`;

test('links to files and headings that exist, images included, are accepted', (t) => {
  const root = repository(t, {
    'README.md':
      '# comanda\n\nSee [the menu](docs/menu.md#freshness-and-the-cache) and ![chart](bench/a.svg).\n',
    'docs/menu.md': '# Menu\n\n## Freshness and the cache\n\nBack to [the README](../README.md#comanda).\n',
    'bench/a.svg': '<svg/>',
  });
  assert.deepEqual(checkDocs(root, ['README.md', 'docs/menu.md']), []);
});

test('a link to a file that does not exist is reported', (t) => {
  const root = repository(t, { 'docs/nfe.md': 'Internals: [detail](nfe-detail.md).\n' });
  assert.deepEqual(checkDocs(root, ['docs/nfe.md']), ['docs/nfe.md: nfe-detail.md does not exist']);
});

test('a link to a heading the page does not have is reported', (t) => {
  const root = repository(t, {
    'docs/a.md': '[limits](b.md#rate-limits) and [here](#nowhere)\n',
    'docs/b.md': '# B\n\n## Rate limit\n',
  });
  assert.deepEqual(checkDocs(root, ['docs/a.md']), [
    'docs/a.md: b.md#rate-limits names no heading of docs/b.md',
    'docs/a.md: #nowhere names no heading of docs/a.md',
  ]);
});

test('links that leave the repository, by a path or a URL, are reported', (t) => {
  const root = repository(t, {
    'README.md': '[contract](../shared/contract.md) [site](https://example.com)\n',
  });
  assert.deepEqual(checkDocs(root, ['README.md']), [
    'README.md: ../shared/contract.md points outside the repository',
    'README.md: https://example.com points outside the repository',
  ]);
});

test('links inside code blocks and inline code are not read as links', (t) => {
  const root = repository(t, { 'README.md': '```md\n[x](missing.md)\n```\n\n`[y](missing.md)`\n' });
  assert.deepEqual(checkDocs(root, ['README.md']), []);
});

test('the README may have 300 lines and not 301', (t) => {
  assert.deepEqual(checkDocs(repository(t, { 'README.md': lines(300) }), ['README.md']), []);
  assert.deepEqual(checkDocs(repository(t, { 'README.md': lines(301) }), ['README.md']), [
    'README.md: 301 lines, at most 300',
  ]);
});

test('a README of a src folder may have 15 lines and not 16; other pages have no limit', (t) => {
  const root = repository(t, {
    'src/README.md': lines(15),
    'src/modules/menu/README.md': lines(16),
    'docs/menu.md': lines(400),
  });
  assert.deepEqual(checkDocs(root, ['src/README.md', 'src/modules/menu/README.md', 'docs/menu.md']), [
    'src/modules/menu/README.md: 16 lines, at most 15',
  ]);
});

test('a line that narrates how the project came to be is reported with its place', (t) => {
  // Phrases joined from words, so that a text search of the repository for them finds none here.
  const diary = ['Session', '3', 'set it at 128 KiB.'].join(' ');
  const heading = ['##', 'Open', 'points for the', 'lead'].join(' ');
  const root = repository(t, { 'docs/a.md': `The cache is kept per version.\n${diary}\n\n${heading}\n` });
  assert.deepEqual(checkDocs(root, ['docs/a.md']), [
    `docs/a.md:2: narrates history: ${diary}`,
    `docs/a.md:4: narrates history: ${heading}`,
  ]);
});

test('heading anchors follow GitHub: punctuation dropped, spaces to hyphens, repeats numbered', () => {
  const anchors = headingAnchors(
    '# Memory: the flags of `npm start`\n## GET /v1/nfe-received\n## Notes\n## Notes\n',
  );
  assert.deepEqual([...anchors], ['memory-the-flags-of-npm-start', 'get-v1nfe-received', 'notes', 'notes-1']);
});
