// Secrets at rest under a passphrase (core::vault), end to end in Chromium: with one set, no
// secret (the Gemini key, a header value, sign-in tokens) is readable in storage; a new browser
// session finds them locked until the passphrase is entered in the popup, and nothing that
// needs a secret runs meanwhile; removing the passphrase stores them as before.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch, screenshot, stopServiceWorkers } from './harness.mjs';
import { startOidc } from './oauth_servers.mjs';

const API_KEY = 'AIzaSyFAKE-vault-key-0001';
const HEADER = 'FAKE-header-vault-0002';
const PASSPHRASE = 'correct horse battery';

let browser;
let popup;
let oidc;
let nextId = 1;

before(async () => {
  oidc = await startOidc({ autoApprove: 'erin' });
  browser = await launch();
  popup = await browser.context.newPage();
  popup.errors = [];
  popup.on('pageerror', (e) => popup.errors.push(e.message));
  await openPopup();
});
after(async () => {
  await browser?.close();
  await oidc?.stop();
});

async function openPopup() {
  await popup.goto(browser.url('popup.html'));
  await popup.getByTestId('worker-status').and(popup.locator('[data-state="ok"]')).waitFor();
}

async function request(req) {
  const reply = await popup.evaluate((m) => chrome.runtime.sendMessage(m), { id: nextId++, request: req });
  assert.equal(reply?.kind, 'response', JSON.stringify(reply));
  return reply.response;
}

const storedText = () => popup.evaluate(async () => JSON.stringify(await chrome.storage.local.get(null)));
const vault = () => popup.getByTestId('vault');

test('a passphrase seals every stored secret; a new browser session is locked until it is entered', async () => {
  const id = 'srv_00000000000000c1';
  await request({ type: 'edit_settings', edit: { type: 'set_api_key', api_key: API_KEY } });
  await request({ type: 'edit_settings', edit: { type: 'add_server', id, server: { name: 'Vaulted', url: oidc.mcpUrl, headers: { 'X-Extra': HEADER } } } });
  await openPopup();
  const row = popup.locator('[data-testid="server-row"][data-name="Vaulted"]');
  await row.and(popup.locator('[data-state="sign-in"]')).waitFor({ timeout: 20_000 });
  await row.getByTestId('sign-in').click();
  await row.and(popup.locator('[data-state="ready"]')).waitFor({ timeout: 20_000 });
  const plain = JSON.parse(await storedText());
  const { accessToken, refreshToken } = plain[`oauth_credentials:${id}`];
  const secrets = [API_KEY, HEADER, accessToken, refreshToken];
  assert.ok(secrets.every((s) => (JSON.stringify(plain)).includes(s)), 'stored as they are without a passphrase');
  await vault().and(popup.locator('[data-state="off"]')).waitFor();
  await screenshot(popup, 'vault-off');

  // Set: two boxes that must agree.
  await popup.locator('#vault-passphrase').fill(PASSPHRASE);
  await popup.locator('#vault-repeat').fill('something else');
  await popup.getByTestId('vault-submit').click();
  assert.match(await popup.locator('#vault-note').innerText(), /differ/);
  await popup.locator('#vault-repeat').fill(PASSPHRASE);
  await popup.getByTestId('vault-submit').click();
  await vault().and(popup.locator('[data-state="unlocked"]')).waitFor({ timeout: 20_000 });
  await screenshot(popup, 'vault-unlocked');
  const sealed = await storedText();
  for (const secret of secrets) assert.ok(!sealed.includes(secret), 'no secret is readable in storage');
  assert.ok(JSON.parse(sealed).vault?.salt, 'the record of how to derive the key');
  // Open for this session: everything works as before.
  assert.equal((await request({ type: 'get_settings' })).settings.gemini.api_key, API_KEY);
  assert.equal((await request({ type: 'list_tools', server_id: id, refresh: true })).type, 'tools');

  // A new browser session: the session's key is gone with it.
  await popup.evaluate(() => chrome.storage.session.clear());
  await stopServiceWorkers(popup);
  await openPopup();
  await vault().and(popup.locator('[data-state="locked"]')).waitFor({ timeout: 20_000 });
  assert.match(await popup.getByTestId('worker-status').innerText(), /secrets locked/);
  await screenshot(popup, 'vault-locked');
  assert.equal((await request({ type: 'get_settings' })).settings.gemini.api_key, undefined);
  const refused = await request({ type: 'list_tools', server_id: id, refresh: true });
  assert.equal(refused.type, 'error');
  assert.equal(refused.error.key, 'errVaultLocked');
  const edit = await request({ type: 'edit_settings', edit: { type: 'set_trust', id, trust: true } });
  assert.equal(edit.type, 'error', 'nothing is written while locked');

  await popup.locator('#vault-passphrase').fill('not the passphrase');
  await popup.getByTestId('vault-submit').click();
  await popup.locator('#vault-note').filter({ hasText: 'not the passphrase' }).waitFor({ timeout: 20_000 });
  await popup.locator('#vault-passphrase').fill(PASSPHRASE);
  await popup.getByTestId('vault-submit').click();
  await vault().and(popup.locator('[data-state="unlocked"]')).waitFor({ timeout: 20_000 });
  assert.equal((await request({ type: 'get_settings' })).settings.gemini.api_key, API_KEY);
  const listed = await request({ type: 'list_tools', server_id: id, refresh: true });
  assert.equal(listed.type, 'tools', JSON.stringify(listed));

  // Removing the passphrase stores the secrets as before.
  await popup.locator('#vault-passphrase').fill(PASSPHRASE);
  await popup.getByTestId('vault-submit').click();
  await vault().and(popup.locator('[data-state="off"]')).waitFor({ timeout: 20_000 });
  const after = JSON.parse(await storedText());
  assert.equal(after.vault, undefined);
  assert.ok(JSON.stringify(after).includes(API_KEY) && JSON.stringify(after).includes(HEADER));
  assert.equal(after[`oauth_credentials:${id}`].refreshToken !== undefined, true, 'credentials are documents again');
  assert.deepEqual(popup.errors, []);
});
