// The browser the console tests drive: Debian's Chromium, headless, through playwright-core, in a
// profile of each test's own. Tests skip when /usr/bin/chromium is not installed.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { type BrowserContext, chromium, type Page } from 'playwright-core';

const CHROMIUM = '/usr/bin/chromium';

export const SKIP = existsSync(CHROMIUM)
  ? false
  : `${CHROMIUM} is missing (apt-get install chromium): browser tests skipped`;

const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Chromium at a 1280 x 800 window and its first page; closed, with its profile, after `t`. */
export async function openBrowser(t: TestContext): Promise<{ context: BrowserContext; page: Page }> {
  const profile = mkdtempSync(join(tmpdir(), 'comanda-chromium-'));
  let context: BrowserContext | undefined;
  t.after(async () => {
    await context?.close();
    rmSync(profile, { recursive: true, force: true });
  });
  context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ARGS,
    viewport: { width: 1280, height: 800 },
  });
  const page = context.pages()[0] ?? (await context.newPage());
  page.setDefaultTimeout(10_000);
  return { context, page };
}

/** Signs `email` in on the console at `base` and waits for the restaurant choice. */
export async function signIn(page: Page, base: string, email: string, password: string): Promise<void> {
  await page.goto(`${base}/console/login`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(/\/console\/restaurant/);
}
