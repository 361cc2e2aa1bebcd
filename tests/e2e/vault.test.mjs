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

test('reads while a passphrase is set or changed never find the key locked', async () => {
  await request({ type: 'edit_settings', edit: { type: 'set_api_key', api_key: API_KEY } });
  // The page reads the settings without pause while the worker seals them under a new key:
  // between the sealed document's write and the new key kept, a read opened it with no key
  // (or the old one) and told the pages the key was locked.
  const readWhile = (change) => popup.evaluate(async ({ change, base }) => {
    let id = base;
    let done = false;
    const odd = [];
    const reader = async () => {
      let reads = 0;
      while (!done) {
        const reply = await chrome.runtime.sendMessage({ id: id++, request: { type: 'get_settings' } });
        const gemini = reply.response.settings?.gemini ?? {};
        if (gemini.api_key_locked || !gemini.api_key) odd.push(JSON.stringify(gemini));
        reads += 1;
      }
      return reads;
    };
    const readers = [reader(), reader(), reader()];
    const answer = await chrome.runtime.sendMessage({ id: id++, request: change });
    done = true;
    const reads = (await Promise.all(readers)).reduce((a, b) => a + b, 0);
    return { answer: answer.response, odd, reads };
  }, { change, base: 100_000 + nextId++ * 1000 });
  const set = await readWhile({ type: 'set_passphrase', passphrase: PASSPHRASE });
  assert.equal(set.answer.type, 'ok', JSON.stringify(set.answer));
  assert.ok(set.reads > 5, `only ${set.reads} reads during the change`);
  assert.deepEqual(set.odd, [], 'reads while the passphrase was set');
  const changed = await readWhile({ type: 'set_passphrase', passphrase: `${PASSPHRASE} 2`, current: PASSPHRASE });
  assert.deepEqual(changed.odd, [], 'reads while the passphrase changed');
  await request({ type: 'remove_passphrase', passphrase: `${PASSPHRASE} 2` });
});
