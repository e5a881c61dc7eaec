// Stored values hold what their owners typed: a webhook URL with a long token, an email of 50-odd
// characters, a client_id of 40 hex digits, a key named with underscores. None has a space to wrap
// at; on a phone (390 px) and a laptop (1280 px) each one wraps inside its card and no page scrolls
// sideways. Screenshots go to a temporary folder.
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type { Page } from 'playwright-core';
import type { Principal } from '../../src/http/principal.ts';
import { storeApiKey } from '../../src/modules/auth/api-keys.ts';
import { storeOAuthClient } from '../../src/modules/auth/oauth-clients.ts';
import { createEndpoint } from '../../src/modules/webhooks/endpoint-service.ts';
import { addStaff, PASSWORD, seedRestaurants } from '../modules/console/support.ts';
import { buildTestApp } from '../support/app.ts';
import { openBrowser, SKIP, signIn } from './chromium.ts';

const EMAIL = 'gerente.financeiro@cantinabellaexpresspinheiros.com.br';
const CLIENT_ID = '3f6a1c2e9b7d4e05a8c1f2d3e4b5a6c7d8e9f0a1';
const HOOK = `https://hooks.example.com/comanda/${'a1B2c3D4e5'.repeat(10)}`;
const KEY_NAME = 'erp_financeiro_contabil_integracao_producao_01';

/** Elements (outside screen-reader text) whose box ends past the window's right edge. */
const STICKING_OUT = `[...document.querySelectorAll('main *, header *')]
  .filter((e) => !e.closest('.sr-only') && e.getBoundingClientRect().right > window.innerWidth + 1)
  .map((e) => e.tagName.toLowerCase() + ': ' + e.textContent.trim().slice(0, 50))`;

/** How many pixels the page is wider than the window, and what sticks out. */
async function sideways(page: Page) {
  const wider = (await page.evaluate('document.documentElement.scrollWidth - window.innerWidth')) as number;
  return { wider, outside: (await page.evaluate(STICKING_OUT)) as string[] };
}

test('long stored values wrap inside their cards at 1280 and 390 px', {
  skip: SKIP,
  timeout: 120_000,
}, async (t) => {
  const shots = mkdtempSync(join(tmpdir(), 'comanda-shots-'));
  // Opened first: its after hook closes it before the app's, whose close would otherwise wait
  // for Chromium's preconnected sockets.
  const { page } = await openBrowser(t);
  const { app, ctx } = await buildTestApp(t, { config: { webhookAllowPrivate: true } });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  const [bella, pinheiros] = await seedRestaurants(ctx.db, ['Cantina Bella', 'Cantina Bella Pinheiros']);
  await addStaff(ctx.db, EMAIL, [bella, pinheiros]);
  const key = await storeApiKey(ctx.db, {
    name: KEY_NAME,
    restaurantIds: [bella, pinheiros],
    scopes: ['financial:read'],
    environment: 'live',
  });
  const redirect = 'https://pos.example/callback';
  await storeOAuthClient(ctx.db, {
    clientId: CLIENT_ID,
    clientSecret: null,
    name: 'Balcão POS',
    scopes: ['products:read', 'menu:read'],
    grantTypes: ['authorization_code'],
    redirectUris: [redirect],
    restaurantIds: [bella],
  });
  const session: Principal = {
    kind: 'restaurant_session',
    sessionId: 's',
    restaurantIds: [bella],
    scopes: [],
  };
  const keys = { secretKey: ctx.secrets.fiscalTokenKey, allowPrivate: true };
  await createEndpoint(ctx.db, bella, session, { url: HOOK, events: ['product.updated'] }, keys);
  const authorize = new URLSearchParams({
    response_type: 'code',
    client_id: CLIENT_ID,
    redirect_uri: redirect,
    scope: 'menu:read',
    state: 'st',
    code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    code_challenge_method: 'S256',
  });

  await signIn(page, base, EMAIL, PASSWORD);
  await page.getByLabel('Cantina Bella', { exact: true }).check();
  await page.getByRole('button', { name: 'Continue' }).click();
  await page.waitForURL(`${base}/console/keys`);

  const pages = [
    ['webhooks', '/console/webhooks', HOOK],
    ['consent', `/oauth/authorize?${authorize}`, CLIENT_ID],
    ['keys', '/console/keys', KEY_NAME],
    ['revoke', `/console/keys/${key.id}/revoke`, KEY_NAME],
    ['apps', '/console/apps', CLIENT_ID],
  ] as const;
  for (const width of [1280, 390]) {
    for (const [name, path, value] of pages) {
      await t.test(
        `${name} at ${width} px: "${value.slice(0, 20)}…" wraps, the page stays in the window`,
        async () => {
          await page.setViewportSize({ width, height: 800 });
          await page.goto(`${base}${path}`);
          assert.ok(await page.getByText(value).first().isVisible());
          await page.screenshot({ path: join(shots, `${name}-${width}.png`), fullPage: true });
          assert.deepEqual(await sideways(page), { wider: 0, outside: [] });
        },
      );
    }
  }
  process.stdout.write(`# screenshots in ${shots}\n`);
});
