// The keys table in a real browser at a desktop (1280 px), a laptop (1024 px), a tablet (768 px)
// and a phone (390 px) width, with keys like the demo's (every scope, two restaurants, long names):
// every action is inside the window.
// Screenshots go to a temporary folder (docs/screenshots/ with UPDATE_SCREENSHOTS=1).
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type { Page } from 'playwright-core';
import { SCOPES } from '../../src/http/principal.ts';
import { storeApiKey } from '../../src/modules/auth/api-keys.ts';
import { addStaff, PASSWORD, seedRestaurants } from '../modules/console/support.ts';
import { buildTestApp } from '../support/app.ts';
import { openBrowser, SKIP, signIn } from './chromium.ts';

const WIDTHS = [
  { name: 'keys-desktop', width: 1280, height: 800 },
  { name: 'keys-laptop', width: 1024, height: 768 },
  { name: 'keys-tablet', width: 768, height: 1024 },
  { name: 'keys-phone', width: 390, height: 844 },
];

/** Actions whose box is outside the window's width (scrolling the page down is fine). */
async function actionsOutside(page: Page, width: number) {
  const outside: string[] = [];
  const actions = page.locator('main a, main button, header a, header button');
  for (let i = 0; i < (await actions.count()); i++) {
    const action = actions.nth(i);
    await action.scrollIntoViewIfNeeded();
    const box = await action.boundingBox();
    const text = (await action.textContent())?.trim() ?? '';
    if (!box || box.width === 0 || box.x < 0 || box.x + box.width > width) outside.push(text);
  }
  return outside;
}

test('every action of the keys page is inside the window at 1280, 1024, 768 and 390 px', {
  skip: SKIP,
  timeout: 120_000,
}, async (t) => {
  const shots =
    process.env.UPDATE_SCREENSHOTS === '1'
      ? new URL('../../docs/screenshots/', import.meta.url).pathname
      : mkdtempSync(join(tmpdir(), 'comanda-shots-'));
  mkdirSync(shots, { recursive: true });
  // Opened first: its after hook closes it before the app's, whose close would otherwise wait
  // for Chromium's preconnected sockets.
  const { page } = await openBrowser(t);
  const { app, ctx } = await buildTestApp(t);
  await app.listen({ host: '127.0.0.1', port: 0 });
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  const [bella, norte, third] = await seedRestaurants(ctx.db, [
    'Cantina Bella',
    'Sabor do Norte Manaus Centro',
    'Cantina Bella Express Pinheiros',
  ]);
  await addStaff(ctx.db, 'gerente.financeiro@cantinabella.example', [bella, norte, third]);
  for (const [name, restaurantIds] of [
    ['Demo: Cantina Bella', [bella]],
    ['Demo: partner for both restaurants', [bella, norte, third]],
    ['Integração ERP financeiro e contábil', [bella]],
  ] as const) {
    await storeApiKey(ctx.db, {
      name,
      restaurantIds: [...restaurantIds],
      scopes: [...SCOPES],
      environment: 'test',
    });
  }

  await signIn(page, base, 'gerente.financeiro@cantinabella.example', PASSWORD);
  await page.getByLabel('Cantina Bella', { exact: true }).check();
  await page.getByRole('button', { name: 'Continue' }).click();
  await page.waitForURL(`${base}/console/keys`);

  for (const { name, width, height } of WIDTHS) {
    await t.test(`at ${width} px the page does not scroll sideways and every Revoke is in view`, async () => {
      await page.setViewportSize({ width, height });
      await page.goto(`${base}/console/keys`);
      await page.screenshot({ path: join(shots, `${name}.png`), fullPage: true });
      assert.equal(await page.getByRole('link', { name: /^Revoke / }).count(), 3);
      assert.deepEqual(await actionsOutside(page, width), []);
      const sideways = await page.evaluate('document.documentElement.scrollWidth - window.innerWidth');
      assert.ok((sideways as number) <= 0, `the page is ${sideways} px wider than the window`);
    });
  }

  await t.test('a table wider than the window scrolls inside its box, never the page', async () => {
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(`${base}/console/keys`);
    await page.evaluate("document.querySelector('table').style.minWidth = '3000px'");
    const sideways = await page.evaluate('document.documentElement.scrollWidth - window.innerWidth');
    assert.equal(sideways, 0, "the Revoke links' screen-reader text does not widen the page");
  });

  await t.test('the header names the signed-in user and leads to the password change', async () => {
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(`${base}/console/keys`);
    assert.equal(await page.locator('.who .user').textContent(), 'gerente.financeiro@cantinabella.example');
    await page.getByRole('link', { name: 'Change password' }).click();
    await page.getByRole('heading', { name: 'Change your password' }).waitFor();
  });
  process.stdout.write(`# screenshots in ${shots}\n`);
});
