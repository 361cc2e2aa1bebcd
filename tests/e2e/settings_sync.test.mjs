// Settings sync, opted into in the popup: servers and preferences travel through
// chrome.storage.sync without a secret value; what another computer writes there (an added,
// edited or removed server) is taken in, keeping this computer's secret values; edits of
// different servers on two computers are both kept. The other computer is played by writing
// chrome.storage.sync as Chrome's sync would deliver it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch, screenshot } from './harness.mjs';
import { startEverything } from './servers.mjs';

let browser;
let everything;
let popup;

before(async () => {
  everything = await startEverything();
  browser = await launch();
  popup = await browser.context.newPage();
  await popup.goto(browser.url('popup.html'));
  await popup.getByTestId('worker-status').and(popup.locator('[data-state="ok"]')).waitFor();
});
after(async () => {
  await browser?.close();
  await everything?.stop();
});

let nextId = 1;
async function request(req) {
  const reply = await popup.evaluate((m) => chrome.runtime.sendMessage(m), { id: nextId++, request: req });
  assert.equal(reply?.kind, 'response', JSON.stringify(reply));
  return reply.response;
}
const synced = () => popup.evaluate(() => chrome.storage.sync.get(null));
const settings = async () => (await request({ type: 'get_settings' })).settings;
const secrets = async () => (await request({ type: 'export_settings', include_secrets: true })).export.text;
async function until(check, what) {
  for (let i = 0; i < 100; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.fail(`timed out waiting for ${what}`);
}

test('sync carries servers and preferences without secrets, takes in another computer\'s edits, and loses neither side\'s', async () => {
  const ids = ['srv_a1a1a1a1a1a1a1a1', 'srv_b2b2b2b2b2b2b2b2'];
  for (const [i, id] of ids.entries()) {
    const server = { name: `Server ${i + 1}`, url: `${everything.url}?n=${i}`, headers: { 'X-Api-Key': `KEY-${i}-SECRET` } };
    assert.equal((await request({ type: 'edit_settings', edit: { type: 'add_server', id, server } })).type, 'settings');
  }
  assert.deepEqual(await synced(), {}, 'nothing syncs before the person turns it on');

  // Turned on in the popup.
  await popup.reload();
  await popup.getByLabel('Sync servers and preferences').check();
  await popup.getByTestId('sync-status').filter({ hasText: 'On: 2 servers in sync.' }).waitFor();
  await screenshot(popup, 'popup-sync-on');
  let items = await synced();
  assert.deepEqual(Object.keys(items).sort(), ['sync_prefs', ...ids.map((id) => `sync_server:${id}`)].sort());
  assert.ok(!JSON.stringify(items).includes('SECRET'), 'no secret value travels');
  assert.equal(items[`sync_server:${ids[0]}`].server.headers['X-Api-Key'], '', 'the header name travels, blank');

  // Another computer trusts server 1 and adds one; this one trusts server 2 meanwhile.
  const elsewhere = { ...items[`sync_server:${ids[0]}`].server, id: 'srv_c3c3c3c3c3c3c3c3', name: 'Elsewhere', url: `${everything.url}?n=elsewhere` };
  const trusted = { ...items[`sync_server:${ids[0]}`].server, trust: true };
  await popup.evaluate(({ trusted, elsewhere }) => chrome.storage.sync.set({
    [`sync_server:${trusted.id}`]: { server: trusted, edited_ms: Date.now() },
    [`sync_server:${elsewhere.id}`]: { server: elsewhere, edited_ms: Date.now() },
  }), { trusted, elsewhere });
  await request({ type: 'edit_settings', edit: { type: 'set_trust', id: ids[1], trust: true } });
  await until(async () => (await settings()).servers.length === 3, 'the added server to be taken in');
  const after = await settings();
  assert.deepEqual(after.servers.map((s) => [s.name, s.trust]), [['Server 1', true], ['Server 2', true], ['Elsewhere', false]]);
  items = await synced();
  assert.equal(items[`sync_server:${ids[0]}`].server.trust, true, 'the other computer\'s edit is kept in sync');
  assert.equal(items[`sync_server:${ids[1]}`].server.trust, true, 'and this one\'s');
  // This computer's secret values stay.
  const kept = await secrets();
  assert.match(kept, /KEY-0-SECRET/);
  assert.match(kept, /KEY-1-SECRET/);

  // A removal on the other computer removes it here; a preference travels.
  await popup.evaluate((id) => chrome.storage.sync.set({ [`sync_server:${id}`]: { server: null, edited_ms: Date.now() } }), elsewhere.id);
  await until(async () => (await settings()).servers.length === 2, 'the removal to be taken in');
  await request({ type: 'edit_settings', edit: { type: 'set_model', model: 'gemini-3.8-pro' } });
  await until(async () => (await synced()).sync_prefs?.model === 'gemini-3.8-pro', 'the model to sync');

  // Off: an edit stays on this computer.
  await popup.reload();
  await popup.getByLabel('Sync servers and preferences').uncheck();
  await request({ type: 'edit_settings', edit: { type: 'set_trust', id: ids[0], trust: false } });
  await new Promise((r) => setTimeout(r, 500));
  assert.equal((await synced())[`sync_server:${ids[0]}`].server.trust, true);
  assert.equal((await request({ type: 'settings_sync' })).enabled, false);
});
