// The popup's sign-in methods end to end: a server set up to sign in as a client of the
// person's own (client credentials with a secret, then with a private key pasted in the form)
// against oidc-provider, which signs in with no window and binds the tokens to the worker's
// DPoP key; the authorization server a secret belongs to, filled in by Test connection; and the
// form of each method, in English and Japanese, light and dark, for the screenshots.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch, screenshot } from './harness.mjs';
import { startOidc } from './oauth_servers.mjs';

const fixtures = [];
const browsers = [];
after(async () => {
  await Promise.all(browsers.map((b) => b.close()));
  await Promise.all(fixtures.map((f) => f.stop()));
});

async function openPopup(locale) {
  const browser = await launch(locale ? { locale } : {});
  browsers.push(browser);
  const popup = await browser.context.newPage();
  popup.errors = [];
  popup.on('pageerror', (e) => popup.errors.push(e.message));
  await popup.goto(browser.url('popup.html'));
  await popup.getByTestId('worker-status').and(popup.locator('[data-state="ok"]')).waitFor();
  return { browser, popup };
}

/** Opens the add form with a name and URL, and its Advanced section. */
async function newServer(popup, name, url) {
  await popup.getByTestId('add-server').click();
  await popup.locator('#server-name').fill(name);
  await popup.locator('#server-url').fill(url);
  await popup.locator('[data-testid="sign-in-settings"] > summary').click();
}

async function waitReady(popup, name) {
  const row = popup.locator(`[data-testid="server-row"][data-name="${name}"]`);
  await row.and(popup.locator('[data-state="ready"]')).waitFor({ timeout: 20_000 });
  return row;
}

test('client credentials: the form binds the secret to the authorization server Test finds, and the worker signs in with no window', async () => {
  const oidc = await startOidc();
  fixtures.push(oidc);
  const machine = await oidc.machine();
  const { browser, popup } = await openPopup();
  const pagesBefore = browser.context.pages().length;

  await newServer(popup, 'Machine', oidc.mcpUrl);
  await popup.getByTestId('method-client-credentials').check();
  await popup.locator('#server-client-id').fill(machine.clientId);
  await popup.locator('#server-client-secret').fill(machine.clientSecret);
  // A secret without the server it belongs to is not saved.
  const issuer = popup.locator('#server-issuer');
  assert.match(await popup.locator('#server-issuer-note').innerText(), /Enter the authorization server/);
  assert.equal(await popup.getByTestId('save-server').isDisabled(), true);
  await popup.getByTestId('test-connection').click();
  const result = popup.getByTestId('test-result');
  await result.locator('[data-state="sign-in"]').waitFor({ timeout: 20_000 });
  assert.match(await result.innerText(), new RegExp(`Its authorization server is ${oidc.issuer}`));
  assert.equal(await issuer.inputValue(), oidc.issuer);
  await screenshot(popup, 'sign-in-client-credentials-en');

  await popup.getByTestId('save-server').click();
  const row = await waitReady(popup, 'Machine');
  assert.match(await row.getByTestId('tool-count').innerText(), /^3 tools$/);
  assert.equal(browser.context.pages().length, pagesBefore, 'no sign-in window opened');
  const tokens = (await oidc.events()).filter((e) => e.kind === 'token');
  assert.deepEqual(tokens.map((e) => [e.grantType, e.clientId, e.status, e.tokenType, e.hadProof]),
    [['client_credentials', machine.clientId, 200, 'DPoP', true]], JSON.stringify(tokens));

  // The same with a private key pasted in the form (private_key_jwt, signed by WebCrypto).
  await newServer(popup, 'Keyed', oidc.mcpUrl);
  await popup.getByTestId('method-client-credentials').check();
  await popup.locator('#server-client-id').fill(machine.keyClientId);
  await popup.locator('#server-private-key').fill('-----BEGIN EC PRIVATE KEY-----\nAAAA\n-----END EC PRIVATE KEY-----');
  assert.match(await popup.locator('#server-private-key-note').innerText(), /EC PRIVATE KEY format/);
  await popup.locator('#server-private-key').fill(machine.privateKeyPem);
  await popup.locator('#server-issuer').fill(oidc.issuer);
  await popup.getByTestId('save-server').click();
  await waitReady(popup, 'Keyed');
  const keyed = (await oidc.events()).filter((e) => e.kind === 'token' && e.clientId === machine.keyClientId);
  assert.deepEqual(keyed.map((e) => [e.grantType, e.status, e.tokenType]), [['client_credentials', 200, 'DPoP']]);
  // The key and the secret stay in the worker: the pages' copy of the settings has blanks.
  const shown = await popup.evaluate(() => chrome.runtime.sendMessage({ id: 1, request: { type: 'get_settings' } }));
  const text = JSON.stringify(shown);
  assert.ok(!text.includes('BEGIN PRIVATE KEY') && !text.includes(machine.clientSecret), 'no secret reaches a page');
  assert.deepEqual(popup.errors, []);
});

/** Fills the form for each method and takes its screenshots (`suffix`: the language). */
async function shootMethods(popup, suffix) {
  await newServer(popup, 'Work', 'https://mcp.example.com/mcp');
  await popup.getByTestId('method-enterprise').check();
  await popup.locator('#server-idp-issuer').fill('https://login.example.com');
  await popup.locator('#server-idp-client-id').fill('gemipanel-desktop');
  await popup.locator('#server-client-id').fill('gemipanel-at-work');
  await popup.locator('#server-client-secret').fill('secret');
  await popup.locator('#server-issuer').fill('https://auth.example.com');
  await screenshot(popup, `sign-in-enterprise-${suffix}`);
  await popup.getByTestId('method-client-credentials').check();
  await popup.locator('#server-client-secret').fill('');
  await popup.locator('#server-private-key').fill('-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgv0BAvkftLG1fbmAq\n-----END PRIVATE KEY-----');
  await screenshot(popup, `sign-in-client-credentials-key-${suffix}`);
  await popup.getByTestId('method-browser').check();
  await popup.locator('#server-issuer').fill('');
  await screenshot(popup, `sign-in-browser-${suffix}`);
}

test('the sign-in methods in the form, in English and Japanese, light and dark', async () => {
  const en = await openPopup();
  await shootMethods(en.popup, 'en');
  await en.popup.emulateMedia({ colorScheme: 'dark' });
  await screenshot(en.popup, 'sign-in-browser-en-dark');
  // Keyboard: the methods are one radio group the arrow keys move through.
  await en.popup.getByTestId('method-browser').focus();
  await en.popup.keyboard.press('ArrowDown');
  assert.equal(await en.popup.getByTestId('method-enterprise').isChecked(), true);
  assert.deepEqual(en.popup.errors, []);

  const ja = await openPopup('ja');
  await shootMethods(ja.popup, 'ja');
  assert.match(await ja.popup.getByTestId('sign-in-method').innerText(), /組織のアカウントで/);
  assert.equal(await ja.popup.locator('label[for="server-issuer"]').innerText(), '認可サーバー');
  assert.deepEqual(ja.popup.errors, []);
});
