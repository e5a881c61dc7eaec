// The API reference page under its Content-Security-Policy in a real browser (Debian's
// Chromium, headless): Scalar renders the document and the policy blocks nothing it needs.
// Skips when /usr/bin/chromium is not installed.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { type BrowserContext, chromium } from 'playwright-core';
import { buildTestApp } from '../support/app.ts';

const CHROMIUM = '/usr/bin/chromium';
const SKIP = existsSync(CHROMIUM) ? false : `${CHROMIUM} is missing: the /docs CSP browser check is skipped`;

test('the reference page works under its CSP', { skip: SKIP, timeout: 90_000 }, async (t) => {
  let context: BrowserContext | undefined;
  const profile = mkdtempSync(join(tmpdir(), 'comanda-csp-'));
  t.after(async () => {
    await context?.close();
    rmSync(profile, { recursive: true, force: true });
  });
  const { app } = await buildTestApp(t);
  const base = await app.listen({ host: '127.0.0.1', port: 0 });
  context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
  });
  const page = await context.newPage();
  const violations: string[] = [];
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
  });
  const response = await page.goto(`${base}/docs/`);
  assert.match(String(response?.headers()['content-security-policy']), /script-src 'self' 'unsafe-inline'/);
  await page.getByText('Exchange an API key').first().waitFor({ timeout: 60_000 });
  await page.waitForTimeout(500);
  assert.deepEqual(violations, []);
});
