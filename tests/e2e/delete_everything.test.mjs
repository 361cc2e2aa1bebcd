// "Delete everything" in the popup (core::reset): with a server signed in (tokens, a registered
// client, a DPoP key in IndexedDB, an MCP session), a passphrase set, a saved chat and cached
// tools, one confirmed click leaves chrome.storage.local, chrome.storage.session and the key
// store empty, revokes the tokens at the authorization server, and the popup shows the first run.
// Also when the passphrase is locked (forgotten): the data goes all the same.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch, screenshot, stopServiceWorkers } from './harness.mjs';
import { startOidc } from './oauth_servers.mjs';

const PASSPHRASE = 'correct horse battery';
let oidc;

before(async () => {
  oidc = await startOidc({ autoApprove: 'erin' });
});
after(async () => {
  await oidc?.stop();
});

/** A popup page of a fresh browser, with helpers on what the extension keeps. */
async function openBrowser(options) {
  const browser = await launch(options);
  const popup = await browser.context.newPage();
  popup.errors = [];
  popup.on('pageerror', (e) => popup.errors.push(e.message));
  let nextId = 1;
  const open = async () => {
    await popup.goto(browser.url('popup.html'));
    await popup.getByTestId('worker-status').and(popup.locator('[data-state="ok"]')).waitFor();
  };
  const request = async (req) => {
    const reply = await popup.evaluate((m) => chrome.runtime.sendMessage(m), { id: nextId++, request: req });
    assert.equal(reply?.kind, 'response', JSON.stringify(reply));
    return reply.response;
  };
  await open();
  return { browser, popup, open, request };
}

/** Everything the extension keeps: both storage areas and the DPoP key store (IndexedDB). */
function everything(popup) {
  return popup.evaluate(async () => {
    const local = await chrome.storage.local.get(null);
    const session = await chrome.storage.session.get(null);
    const databases = (await indexedDB.databases()).map((d) => d.name);
    let dpopKeys = [];
    if (databases.includes('gemipanel-keys')) {
      dpopKeys = await new Promise((resolve, reject) => {
        const open = indexedDB.open('gemipanel-keys');
        open.onsuccess = () => {
          const db = open.result;
          if (!db.objectStoreNames.contains('dpop')) return (db.close(), resolve([]));
          const all = db.transaction('dpop', 'readonly').objectStore('dpop').getAllKeys();
          all.onsuccess = () => (db.close(), resolve(all.result.map(String)));
          all.onerror = () => reject(all.error);
        };
        open.onerror = () => reject(open.error);
      });
    }
    return { local, session, databases, dpopKeys };
  });
}

function plantChat(popup) {
  return popup.evaluate(() => {
    const saved = { id: 'kept1', title: 'A chat to forget', created_ms: 1, updated_ms: Date.now(),
      history: [{ role: 'user', parts: [{ text: 'Hello' }] }], entries: [{ user: { text: 'Hello' } }] };
    return chrome.storage.local.set({
      'chat:kept1': JSON.stringify(saved),
      chats: JSON.stringify([{ id: 'kept1', title: saved.title, updated_ms: saved.updated_ms }]),
    });
  });
}

function randomId() {
  return `srv_${[...crypto.getRandomValues(new Uint8Array(8))].map((b) => b.toString(16).padStart(2, '0')).join('')}`;
}

async function until(what, check, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Presses Delete everything and confirms; the card's report. */
async function deleteEverything(popup, name) {
  const card = popup.getByTestId('delete-card');
  await card.getByTestId('delete-everything').click();
  const list = card.getByTestId('delete-what-goes');
  await list.waitFor();
  const items = await list.locator('li').count();
  // The safe button has the focus: Enter on an open confirmation does not delete.
  assert.equal(await popup.evaluate(() => document.activeElement?.textContent), await card.locator('button.secondary').innerText());
  await card.scrollIntoViewIfNeeded();
  await screenshot(popup, `${name}-confirm`);
  const locked = await card.getByTestId('delete-locked').count();
  await card.getByTestId('delete-everything-confirm').click();
  const done = card.getByTestId('delete-everything-done');
  await done.or(card.getByTestId('delete-everything-error')).waitFor({ timeout: 30_000 });
  assert.equal(await card.getByTestId('delete-everything-error').count(), 0, await card.innerText());
  await card.scrollIntoViewIfNeeded();
  await screenshot(popup, `${name}-done`);
  return { text: await done.innerText(), items, locked };
}

/** The popup as on first install: no key, no server, no passphrase. */
async function assertFirstRun(popup) {
  await popup.getByTestId('vault').and(popup.locator('[data-state="off"]')).waitFor();
  assert.equal(await popup.locator('#api-key').inputValue(), '');
  assert.equal(await popup.locator('[data-testid="server-row"]').count(), 0);
  await popup.getByTestId('add-server').waitFor();
}

function assertEmpty(all) {
  assert.deepEqual(Object.keys(all.local), [], `left in chrome.storage.local: ${Object.keys(all.local)}`);
  assert.deepEqual(Object.keys(all.session), [], `left in chrome.storage.session: ${Object.keys(all.session)}`);
  assert.deepEqual(all.dpopKeys, [], 'no DPoP key in IndexedDB');
}

test('Delete everything removes every stored thing, revokes the tokens and leaves the first run', async () => {
  const { browser, popup, open, request } = await openBrowser();
  try {
    const id = randomId();
    await request({ type: 'edit_settings', edit: { type: 'set_api_key', api_key: 'AIzaSyFAKE-delete-0001' } });
    await request({ type: 'edit_settings', edit: { type: 'add_server', id, server: { name: 'Signed', url: oidc.mcpUrl } } });
    await open();
    const row = popup.locator('[data-testid="server-row"][data-name="Signed"]');
    await row.and(popup.locator('[data-state="sign-in"]')).waitFor({ timeout: 20_000 });
    await row.getByTestId('sign-in').click();
    await row.and(popup.locator('[data-state="ready"]')).waitFor({ timeout: 20_000 });
    assert.equal((await request({ type: 'list_tools', server_id: id, refresh: true })).type, 'tools');
    await popup.locator('#vault-passphrase').fill(PASSPHRASE);
    await popup.locator('#vault-repeat').fill(PASSPHRASE);
    await popup.getByTestId('vault-submit').click();
    await popup.getByTestId('vault').and(popup.locator('[data-state="unlocked"]')).waitFor({ timeout: 20_000 });
    await plantChat(popup);

    const before = await everything(popup);
    for (const key of ['settings', `oauth_credentials:${id}`, 'oauth_clients', 'vault', 'chats', 'chat:kept1', `tools_cache:${id}`]) {
      assert.ok(key in before.local, `${key} is stored before: ${Object.keys(before.local)}`);
    }
    assert.ok('vault_key' in before.session && `mcp_session_${id}` in before.session, `session: ${Object.keys(before.session)}`);
    assert.deepEqual(before.dpopKeys, [id], 'a DPoP key was made for the server');
    const revocations = (await oidc.events()).filter((e) => e.kind === 'revocation').length;

    const { text, items, locked } = await deleteEverything(popup, 'delete-everything-light-en');
    assert.equal(items, 8, 'the confirmation names all eight kinds of data');
    assert.equal(locked, 0, 'unlocked, the tokens are revoked: no warning');
    assert.equal(text, 'Deleted everything: 1 server, 1 sign-in, 1 DPoP key, 1 chat. GemiPanel is as on first install.');
    assertEmpty(await everything(popup));
    assert.ok((await oidc.events()).filter((e) => e.kind === 'revocation').length > revocations, 'the tokens were revoked');
    await assertFirstRun(popup);

    // Nothing comes back: not from the worker's memory, not after it restarts.
    await open();
    await assertFirstRun(popup);
    assert.equal((await request({ type: 'list_servers' })).servers.length, 0);
    await stopServiceWorkers(popup);
    await open();
    await assertFirstRun(popup);
    assertEmpty(await everything(popup));
    // The fresh worker's once-a-session check for orphans (2 s after it starts) finds nothing
    // kept for any server, and so marks nothing either.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    assertEmpty(await everything(popup));
    assert.deepEqual(popup.errors, []);
  } finally {
    await browser.close();
  }
});

for (const { locale, colorScheme, name } of [
  { locale: 'en-US', colorScheme: 'dark', name: 'dark-en' },
  { locale: 'ja', colorScheme: 'light', name: 'light-ja' },
  { locale: 'ja', colorScheme: 'dark', name: 'dark-ja' },
]) {
  test(`Delete everything with the passphrase locked (forgotten), ${name}: everything goes all the same`, async () => {
    const { browser, popup, open, request } = await openBrowser({ locale, colorScheme });
    try {
      const id = randomId();
      await request({ type: 'edit_settings', edit: { type: 'set_api_key', api_key: 'AIzaSyFAKE-delete-0002' } });
      await request({ type: 'edit_settings', edit: { type: 'add_server', id, server: { name: 'Kept', url: oidc.mcpUrl } } });
      assert.equal((await request({ type: 'set_passphrase', passphrase: PASSPHRASE })).type, 'ok');
      await plantChat(popup);
      // A new browser session: the key is gone, the secrets are locked.
      await popup.evaluate(() => chrome.storage.session.clear());
      await stopServiceWorkers(popup);
      await open();
      await popup.getByTestId('vault').and(popup.locator('[data-state="locked"]')).waitFor();

      await popup.getByTestId('delete-card').getByTestId('delete-everything').click();
      await popup.getByTestId('delete-locked').waitFor();
      await popup.getByTestId('delete-card').locator('button.secondary').click();
      await deleteEverything(popup, `delete-everything-${name}`);
      assertEmpty(await everything(popup));
      await assertFirstRun(popup);
      await open();
      await assertFirstRun(popup);
      assert.deepEqual(popup.errors, []);
    } finally {
      await browser.close();
    }
  });
}
