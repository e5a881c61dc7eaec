// The console in a real browser: Debian's Chromium, headless, driven by playwright-core, against
// the app listening on 127.0.0.1. A third-party application is a second server on another site
// (http://localhost:<port>): the consent flow starts from its page, so the SameSite=Strict cookie
// really is withheld on the cross-site arrival. Skips when /usr/bin/chromium is not installed.
// UPDATE_SCREENSHOTS=1 also writes docs/screenshots/*.png.
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import type { Page } from 'playwright-core';
import { storeApiKey } from '../../src/modules/auth/api-keys.ts';
import { storeOAuthClient } from '../../src/modules/auth/oauth-clients.ts';
import { addStaff, PASSWORD, seedRestaurants } from '../modules/console/support.ts';
import { buildTestApp } from '../support/app.ts';
import { openBrowser, SKIP } from './chromium.ts';

const SHOTS = new URL('../../docs/screenshots/', import.meta.url);

async function shoot(page: Page, name: string): Promise<void> {
  if (process.env.UPDATE_SCREENSHOTS !== '1') return;
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: new URL(`${name}.png`, SHOTS).pathname, fullPage: true });
}

/** The third-party application: a page linking to the authorization endpoint, and its callback. */
async function thirdPartyApp(t: { after(fn: () => unknown): void }) {
  const callbacks: URLSearchParams[] = [];
  let authorizeUrl = '';
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname === '/callback') callbacks.push(url.searchParams);
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(
      url.pathname === '/callback'
        ? '<h1>Connected</h1>'
        : `<a id="connect" href="${authorizeUrl}">Connect comanda</a>`,
    );
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  t.after(() => new Promise((done) => server.close(done)));
  const origin = `http://localhost:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    callbacks,
    setAuthorizeUrl: (url: string) => {
      authorizeUrl = url;
    },
  };
}

async function postForm(base: string, form: Record<string, string>) {
  const res = await fetch(`${base}/oauth/token`, { method: 'POST', body: new URLSearchParams(form) });
  return { status: res.status, body: (await res.json()) as Record<string, string> };
}

const bearer = (base: string, path: string, token: string) =>
  fetch(`${base}${path}`, { headers: { authorization: `Bearer ${token}` } }).then((r) => r.status);

test('the console in a real browser', { skip: SKIP, timeout: 120_000 }, async (t) => {
  // After hooks run in the order they are added: the browser closes before the app, whose close
  // would otherwise wait for Chromium's preconnected sockets (up to the 60 s headers timeout).
  const { context, page } = await openBrowser(t);
  // What the browser logs while the test walks the console (checked by the last subtests).
  const logged: { type: string; text: string; url: string }[] = [];
  page.on('console', (message) =>
    logged.push({ type: message.type(), text: message.text(), url: message.location().url }),
  );
  const { app, ctx } = await buildTestApp(t);
  await app.listen({ host: '127.0.0.1', port: 0 });
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  const [bella] = await seedRestaurants(ctx.db, ['Cantina Bella', 'Sushi Kai']);
  const restaurants = await ctx.db.selectFrom('restaurants').select('id').execute();
  await addStaff(
    ctx.db,
    'ana@cantina.example',
    restaurants.map((r) => r.id),
  );
  const both = restaurants.map((r) => r.id);
  await storeApiKey(ctx.db, {
    name: 'ERP financeiro',
    restaurantIds: both,
    scopes: ['financial:read'],
    environment: 'test',
  });
  const pos = await thirdPartyApp(t);
  await storeOAuthClient(ctx.db, {
    clientId: 'balcao-pos',
    clientSecret: null,
    name: 'Balcão POS',
    scopes: ['products:read', 'menu:read'],
    grantTypes: ['authorization_code'],
    redirectUris: [`${pos.origin}/callback`],
    restaurantIds: [],
  });

  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });

  await t.test('signs in with the keyboard alone and picks the restaurant', async () => {
    await page.goto(`${base}/console/keys`);
    assert.match(page.url(), /\/console\/login\?next=%2Fconsole%2Fkeys$/);
    const focused = () =>
      page.evaluate<string>('document.activeElement.id || document.activeElement.textContent');
    const visited: unknown[] = [];
    while (visited.length < 5 && (await focused()) !== 'email') {
      await page.keyboard.press('Tab');
      visited.push(await focused());
    }
    assert.deepEqual(visited, ['Skip to content', 'email']);
    assert.equal(await page.locator('#email').getAttribute('autocomplete'), 'username');
    assert.equal(await page.locator('#password').getAttribute('autocomplete'), 'current-password');
    await page.keyboard.type('ana@cantina.example');
    await page.keyboard.press('Tab');
    await page.keyboard.type(PASSWORD);
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/console\/restaurant/);
    await page.getByLabel('Cantina Bella').check();
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.waitForURL(`${base}/console/keys`);
    assert.equal(await page.locator('.who .restaurant').textContent(), 'Cantina Bella');
  });

  await t.test('the password form names the signed-in account for password managers', async () => {
    await page.getByRole('link', { name: 'Change password' }).click();
    await page.getByRole('heading', { name: 'Change your password' }).waitFor();
    const form = page.locator('form[action="/console/password"]');
    // Chromium's guidance: a password form holds its (optionally hidden) username.
    const username = form.locator('input[autocomplete="username"]');
    const autocomplete = (label: string) =>
      form.getByLabel(label, { exact: true }).getAttribute('autocomplete');
    try {
      const seen = {
        usernames: await username.count(),
        current: await autocomplete('Current password'),
        new: await autocomplete('New password'),
        again: await autocomplete('New password again'),
      };
      assert.deepEqual(seen, {
        usernames: 1,
        current: 'current-password',
        new: 'new-password',
        again: 'new-password',
      });
      assert.equal(await username.inputValue(), 'ana@cantina.example');
      assert.equal(await username.isVisible(), false, 'the header already shows the email');
      assert.equal(await username.getAttribute('readonly'), '');
    } finally {
      // Back to the keys page whatever happened, where the next subtest starts.
      await page.goto(`${base}/console/keys`);
    }
  });

  let apiKey = '';
  await t.test('creates a key, shown once with a working copy button', async () => {
    await page.getByRole('link', { name: 'New API key' }).click();
    await page.getByLabel('Name').fill('POS do balcão');
    await page.getByRole('checkbox', { name: /products:read/ }).check();
    await page.getByRole('checkbox', { name: /menu:read/ }).check();
    await page.getByRole('radio', { name: /^Live/ }).check();
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.getByRole('heading', { name: 'API key created' }).waitFor();
    apiKey = await page.getByLabel('POS do balcão').inputValue();
    assert.match(apiKey, /^ck_live_/);
    await page.getByRole('button', { name: 'Copy' }).click();
    await page.getByText('Copied to the clipboard.').waitFor();
    assert.equal(await page.evaluate<string>('navigator.clipboard.readText()'), apiKey);
    await page.getByRole('link', { name: 'Back to API keys' }).click();
    assert.equal(await page.getByText(apiKey).count(), 0, 'the list never shows the key again');
    assert.equal(await page.getByText(`${apiKey.slice(0, 12)}…`).count(), 1);
  });

  await t.test('the key works at /oauth/token; revoked, its token is refused at once', async () => {
    const exchanged = await postForm(base, { grant_type: 'api_key', api_key: apiKey });
    assert.equal(exchanged.status, 200, JSON.stringify(exchanged.body));
    assert.equal(await bearer(base, '/v1/products', exchanged.body.access_token), 200);
    await page.reload();
    await shoot(page, 'keys');
    await page.getByRole('link', { name: 'Revoke POS do balcão' }).click();
    await page.getByRole('heading', { name: /Revoke “POS do balcão”/ }).waitFor();
    await page.getByRole('button', { name: 'Revoke key' }).click();
    await page.getByText(/revoked: its access tokens no longer work/).waitFor();
    assert.equal(await bearer(base, '/v1/products', exchanged.body.access_token), 401);
    assert.equal((await postForm(base, { grant_type: 'api_key', api_key: apiKey })).status, 401);
  });

  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  const authorizeQuery = new URLSearchParams({
    response_type: 'code',
    client_id: 'balcao-pos',
    redirect_uri: `${pos.origin}/callback`,
    scope: 'menu:read',
    state: 'st-42',
    code_challenge: challenge,
    code_challenge_method: 'S256',
  });
  pos.setAuthorizeUrl(`${base}/oauth/authorize?${authorizeQuery}`);
  let tokens: Record<string, string> = {};

  await t.test('a signed-out visitor from the application signs in, consents and gets a token', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(/\/console\/login\?signed_out=1/);
    await page.goto(pos.origin);
    await page.click('#connect');
    await page.waitForURL(/\/console\/login\?next=%2Foauth%2Fauthorize/);
    await page.getByLabel('Email').fill('ana@cantina.example');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(/\/console\/restaurant/);
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('heading', { name: 'Allow Balcão POS to use Cantina Bella?' }).waitFor();
    assert.ok(await page.getByText('See your menu with the price and availability').isVisible());
    await shoot(page, 'consent');
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.waitForURL(`${pos.origin}/callback?**`);
    const callback = pos.callbacks.at(-1)!;
    assert.equal(callback.get('state'), 'st-42');
    const exchanged = await postForm(base, {
      grant_type: 'authorization_code',
      code: callback.get('code')!,
      redirect_uri: `${pos.origin}/callback`,
      client_id: 'balcao-pos',
      code_verifier: verifier,
    });
    assert.equal(exchanged.status, 200, JSON.stringify(exchanged.body));
    tokens = exchanged.body;
    assert.equal(await bearer(base, '/v1/menu', tokens.access_token), 200);
  });

  await t.test('a signed-in member arriving from the application goes straight to consent', async () => {
    await page.goto(pos.origin);
    await page.click('#connect');
    await page.getByRole('heading', { name: /^Allow Balcão POS/ }).waitFor();
    await page.getByRole('button', { name: 'Deny' }).click();
    await page.waitForURL(`${pos.origin}/callback?**`);
    assert.equal(pos.callbacks.at(-1)!.get('error'), 'access_denied');
  });

  await t.test('the installed app is listed; removing it refuses its tokens', async () => {
    await page.goto(`${base}/console/apps`);
    await page.getByRole('cell', { name: 'Balcão POS balcao-pos' }).waitFor();
    await shoot(page, 'apps');
    await page.setViewportSize({ width: 390, height: 844 });
    await shoot(page, 'apps-phone');
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.getByRole('link', { name: 'Remove Balcão POS' }).click();
    await page.getByRole('button', { name: 'Remove application' }).click();
    await page.getByText('The application was removed').waitFor();
    assert.equal(await bearer(base, '/v1/menu', tokens.access_token), 401);
    const refresh = await postForm(base, {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
      client_id: 'balcao-pos',
    });
    assert.equal(refresh.body.error, 'invalid_grant');
    assert.ok(bella);
  });

  await t.test('the browser logged no password-form warning', async () => {
    const warnings = logged.filter((entry) => /Password forms should have/.test(entry.text));
    assert.deepEqual(warnings, []);
  });

  await t.test('the pages name an icon that loads: no failed request for a favicon', async () => {
    await page.goto(`${base}/console/webhooks`);
    await page.waitForTimeout(500); // the icon loads after the page
    const failed = logged.filter(
      (entry) => /favicon/.test(entry.url) || (entry.type === 'error' && /Failed to load/.test(entry.text)),
    );
    assert.deepEqual(failed, []);
    const icons = await page.evaluate<string[]>(
      "[...document.querySelectorAll('link[rel=icon]')].map((link) => link.href)",
    );
    assert.equal(icons.length, 1, 'the page names its icon');
    const served = await fetch(icons[0]);
    assert.equal(served.status, 200);
    assert.equal(served.headers.get('content-type'), 'image/svg+xml');
  });
});
