// The first run and the update after it, in the built extension: a fresh profile is a first
// install and opens the welcome page (the worker's onInstalled); a key pasted there is checked
// live against the fake Gemini's model list (a bad one says why) and saved, with the model it
// will use named; steps are skipped; a gemini-cli file is imported through the popup's import;
// the popup lists what is left with its actions until dismissed. Then an update: the extension
// is installed at 0.0.9, its manifest set to the real version and reloaded, as Chrome updates
// an unpacked extension, and the side panel shows the one-line changelog until dismissed; a
// first install and a reload of the same version show none. Screenshots of the welcome page
// in English and Japanese, light and dark, and of the notice.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dist, english, launch, screenshot, serviceWorker, welcomePage } from './harness.mjs';
import { startEverything } from './servers.mjs';
import { startFakeGemini } from '../fixtures/fake-gemini/server.mjs';

const API_KEY = 'test-key';
const files = mkdtempSync(join(tmpdir(), 'gemipanel-welcome-'));
let fake;
let everything;
let browser;
let welcome;

before(async () => {
  fake = await startFakeGemini({ apiKey: API_KEY });
  everything = await startEverything();
  browser = await launch({ welcome: true });
  welcome = await welcomePage(browser.context, browser.id);
  // Gemini is the fake: the settings' API address, as the other tests set it.
  await welcome.evaluate((url) => chrome.storage.local.set({ settings: { version: 6, gemini: { base_url: url }, servers: [] } }), fake.url);
  await welcome.reload();
  await welcome.getByTestId('get-key').waitFor();
});
after(async () => {
  await browser?.close();
  await fake?.close?.();
  await everything?.stop();
  rmSync(files, { recursive: true, force: true });
});

async function settingsOf(page) {
  const reply = await page.evaluate(() => chrome.runtime.sendMessage({ id: 1, request: { type: 'get_settings' } }));
  assert.equal(reply.response.type, 'settings', JSON.stringify(reply.response));
  return reply.response.settings;
}

const step = (page, name) => page.locator(`li.step[data-step="${name}"]`);

/** Both themes of the page, the welcome page at a tab's width. */
async function shoot(page, name) {
  if (page.url().endsWith('/welcome.html')) await page.setViewportSize({ width: 1000, height: 800 });
  for (const scheme of ['light', 'dark']) {
    await page.emulateMedia({ colorScheme: scheme });
    await screenshot(page, `${name}-${scheme}`);
  }
  await page.emulateMedia({ colorScheme: 'light' });
}

test('installing opens the welcome page: what GemiPanel is, where to get a key, the steps', async () => {
  const page = welcome;
  assert.equal(page.url(), browser.url('welcome.html'));
  assert.equal(await page.title(), 'Welcome to GemiPanel');
  assert.match(await page.locator('h1').innerText(), /Welcome to GemiPanel/);
  assert.match(await page.locator('.welcome-hero').innerText(), /side panel/);
  assert.equal(await page.getByTestId('get-key').getAttribute('href'), 'https://aistudio.google.com/apikey');
  assert.deepEqual(await page.locator('li.step').evaluateAll((steps) => steps.map((s) => s.dataset.step)),
    ['api_key', 'servers', 'shortcut']);
  // The first step is the current one; nothing is done yet but what the browser set itself.
  assert.equal(await step(page, 'api_key').getAttribute('data-state'), 'open');
  assert.match(await step(page, 'api_key').getAttribute('class'), /current/);
  assert.equal(await step(page, 'servers').getAttribute('data-state'), 'open');
  assert.ok(await page.getByTestId('save-key').isDisabled(), 'nothing to save before a key works');
  await shoot(page, 'welcome-en');
});

test('a bad key is refused with the API\'s reason; a good one is checked as it is pasted and saved', async () => {
  const page = welcome;
  const result = page.getByTestId('check-result');
  await page.locator('#api-key').fill('AIza-not-a-key');
  await result.locator('.error').filter({ hasText: /API key not valid/ }).waitFor();
  assert.match(await result.innerText(), /^Check failed: .*API key not valid/);
  assert.ok(await page.getByTestId('save-key').isDisabled(), 'a key that does not work is not saved');
  await screenshot(page, 'welcome-en-bad-key');

  const listed = fake.requests().filter((r) => r.method === 'GET').length;
  await page.locator('#api-key').fill(API_KEY);
  await result.filter({ hasText: /The key works: \d+ models available/ }).waitFor();
  assert.ok(fake.requests().filter((r) => r.method === 'GET').length > listed, 'checked against the model list');
  // The automatic default, by its name in the list.
  assert.match(await page.getByTestId('welcome-model').innerText(), /^Default model: Gemini [\d.]+ Flash/);
  assert.equal((await settingsOf(page)).gemini.api_key, undefined, 'checked, not saved yet');
  await page.getByTestId('save-key').click();
  await page.getByTestId('welcome-key-saved').filter({ hasText: 'Key saved.' }).waitFor();
  assert.equal((await settingsOf(page)).gemini.api_key, API_KEY);
  await step(page, 'api_key').and(page.locator('[data-state="done"]')).waitFor();
  assert.match(await step(page, 'servers').getAttribute('class'), /current/, 'the next step is current');
});

test('steps can be skipped; the popup lists what is left with its actions until dismissed', async () => {
  const page = welcome;
  await step(page, 'servers').getByTestId('skip').click();
  await step(page, 'servers').and(page.locator('[data-state="skipped"]')).waitFor();
  assert.match(await step(page, 'servers').innerText(), /Skipped: the toolbar popup keeps it on its list/);
  assert.equal(await step(page, 'servers').getByTestId('import-file').count(), 0, 'folded');
  // Skipped is kept: the page opened again shows it so.
  await page.reload();
  await step(page, 'servers').and(page.locator('[data-state="skipped"]')).waitFor();

  // The manifest's suggested shortcut is set: the step is done and says which keys.
  const shortcut = await page.evaluate(async () =>
    (await chrome.commands.getAll()).find((c) => c.name === 'open-side-panel')?.shortcut ?? '');
  assert.equal(shortcut, 'Ctrl+Shift+Y');
  assert.match(await page.getByTestId('welcome-shortcut').innerText(), /^Press Ctrl\+Shift\+Y on any page to open the chat/);
  assert.equal(await step(page, 'shortcut').getAttribute('data-state'), 'done');

  const popup = await browser.context.newPage();
  await popup.goto(browser.url('popup.html'));
  const card = popup.getByTestId('first-run');
  await card.waitFor();
  const left = await card.locator('li').evaluateAll((items) => items.map((i) => i.dataset.step));
  // The key is done; the skipped servers step is still left (skipping means later).
  assert.deepEqual(left, ['servers']);
  assert.match(await card.innerText(), /Getting started[\s\S]*Add or import an MCP server/i);
  await popup.emulateMedia({ colorScheme: 'light' });
  await screenshot(popup, 'welcome-popup-left-light');
  await popup.emulateMedia({ colorScheme: 'dark' });
  await screenshot(popup, 'welcome-popup-left-dark');
  await popup.emulateMedia({ colorScheme: 'light' });
  // Its action opens the add-server form.
  await card.locator('li[data-step="servers"] button').click();
  await popup.getByTestId('server-form').waitFor();
  await popup.getByRole('button', { name: 'Cancel' }).click();
  // Dismissed, it stays away.
  await popup.getByTestId('first-run-dismiss').click();
  await card.waitFor({ state: 'detached' });
  await popup.reload();
  await popup.getByTestId('worker-status').and(popup.locator('[data-state="ok"]')).waitFor();
  await popup.locator('[data-testid="gemini-save-result"]').waitFor({ state: 'attached' });
  assert.equal(await card.count(), 0, 'dismissed for good');
  assert.deepEqual(JSON.parse(await popup.evaluate(async () => (await chrome.storage.local.get('first_run')).first_run)).dismissed, true);
  await popup.close();
});

test('the import offer imports a gemini-cli file through the popup\'s import', async () => {
  const page = welcome;
  await page.reload();
  await step(page, 'servers').getByTestId('reopen').click();
  await step(page, 'servers').and(page.locator('[data-state="open"]')).waitFor();
  const file = join(files, 'settings.json');
  writeFileSync(file, JSON.stringify({ mcpServers: { everything: { httpUrl: everything.url } } }));
  await page.getByTestId('import-file').setInputFiles(file);
  const preview = page.getByTestId('import-preview');
  await preview.waitFor();
  assert.match(await preview.innerText(), /gemini-cli/);
  await shoot(page, 'welcome-en-import');
  await page.getByTestId('apply-import').click();
  await page.getByTestId('import-status').locator('.ok').waitFor();
  await step(page, 'servers').and(page.locator('[data-state="done"]')).waitFor();
  assert.match(await page.getByTestId('welcome-servers').innerText(), /^1 server configured/);
  assert.deepEqual((await settingsOf(page)).servers.map((s) => [s.name, s.url]), [['everything', everything.url]]);
  // Add a server opens the popup's own form here.
  await page.getByTestId('add-server').click();
  await page.getByTestId('server-form').waitFor();
  await page.getByRole('button', { name: 'Cancel' }).click();
  await shoot(page, 'welcome-en-done');
});

test('Open the chat opens the side panel from the click', async () => {
  await welcome.getByTestId('welcome-open-chat').click();
  // The panel's context registers a moment after the click, its documentUrl once committed.
  const loaded = (panels) => panels.length === 1 && /sidepanel\.html$/.test(panels[0].documentUrl);
  let panels = [];
  for (let i = 0; i < 100 && !loaded(panels); i++) {
    if (i > 0) await new Promise((r) => setTimeout(r, 100));
    panels = await browser.worker.evaluate(() => chrome.runtime.getContexts({ contextTypes: ['SIDE_PANEL'] }));
  }
  assert.ok(loaded(panels), JSON.stringify(panels));
  assert.equal(await welcome.locator('.welcome-finish .error').count(), 0);
});

test('a first install shows no changelog notice in the panel', async () => {
  const panel = await browser.context.newPage();
  await panel.goto(browser.url('sidepanel.html'));
  await panel.getByTestId('worker-status').and(panel.locator('[data-state="ok"]')).waitFor();
  await panel.getByTestId('input').waitFor();
  assert.equal(await panel.getByTestId('whats-new').count(), 0);
  assert.equal(await panel.evaluate(async () => (await chrome.storage.local.get('whats_new')).whats_new), undefined);
  await panel.close();
});

test('in Japanese, without a shortcut: the page says where to set one, and the popup lists it', async () => {
  // A build whose command suggests no keys: nothing opens the panel until the person sets one.
  const copy = mkdtempSync(join(tmpdir(), 'gemipanel-noshortcut-'));
  cpSync(dist, copy, { recursive: true });
  const manifest = JSON.parse(readFileSync(join(copy, 'manifest.json'), 'utf8'));
  delete manifest.commands['open-side-panel'].suggested_key;
  writeFileSync(join(copy, 'manifest.json'), JSON.stringify(manifest));
  const ja = await launch({ locale: 'ja', welcome: true, extension: copy });
  try {
    const page = await welcomePage(ja.context, ja.id);
    await page.getByTestId('get-key').waitFor();
    assert.match(await page.locator('h1').innerText(), /GemiPanel へようこそ/);
    assert.match(await step(page, 'servers').innerText(), /設定ファイルを読み込む/);
    assert.equal(await step(page, 'shortcut').getAttribute('data-state'), 'open');
    assert.match(await page.getByTestId('welcome-shortcut').innerText(), /ショートカットはまだありません。chrome:\/\/extensions\/shortcuts/);
    await shoot(page, 'welcome-ja');
    // Its button opens Chrome's shortcuts page, which no link could.
    const [opened] = await Promise.all([
      ja.context.waitForEvent('page'),
      page.getByTestId('open-shortcuts').click(),
    ]);
    await opened.waitForURL(/^chrome:\/\/extensions\/shortcuts/);
    await opened.close();
    await step(page, 'shortcut').getByTestId('skip').click();
    await step(page, 'shortcut').and(page.locator('[data-state="skipped"]')).waitFor();
    const popup = await ja.context.newPage();
    await popup.goto(ja.url('popup.html'));
    const card = popup.getByTestId('first-run');
    await card.waitFor();
    assert.deepEqual(await card.locator('li').evaluateAll((items) => items.map((i) => i.dataset.step)),
      ['api_key', 'servers', 'shortcut']);
    assert.match(await card.locator('li[data-step="shortcut"]').innerText(), /ショートカットを設定/);
    // "Add key" takes the person to the key's field just below.
    await card.locator('li[data-step="api_key"] button').click();
    assert.equal(await popup.evaluate(() => document.activeElement?.id), 'api-key');
    await screenshot(popup, 'welcome-popup-left-ja-light');
  } finally {
    await ja.close();
    rmSync(copy, { recursive: true, force: true });
  }
});

test('after an update the panel says what is new in one line, until dismissed; a reload of the same version adds nothing', async () => {
  const version = JSON.parse(readFileSync(join(dist, 'manifest.json'), 'utf8')).version;
  // The extension as it was: the same build with an older version, installed in a fresh profile.
  const copy = mkdtempSync(join(tmpdir(), 'gemipanel-update-'));
  cpSync(dist, copy, { recursive: true });
  const manifestPath = join(copy, 'manifest.json');
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
  writeFileSync(manifestPath, JSON.stringify({ ...manifest, version: '0.0.9' }));
  // Developer mode on, as for anyone running an unpacked build: without it Chromium disables a
  // command-line extension that reloads (DISABLE_UNSUPPORTED_DEVELOPER_EXTENSION).
  const profile = mkdtempSync(join(tmpdir(), 'gemipanel-profile-'));
  mkdirSync(join(profile, 'Default'));
  writeFileSync(join(profile, 'Default', 'Preferences'), JSON.stringify({ extensions: { ui: { developer_mode: true } } }));
  const old = await launch({ profile, extension: copy, nativeMessaging: false });
  try {
    const page = await old.context.newPage();
    await page.goto(old.url('sidepanel.html'));
    assert.equal(await page.evaluate(() => chrome.runtime.getManifest().version), '0.0.9');
    // The update: Chrome reads the new manifest on reload and reports reason "update" with the
    // previous version, as it does when the Web Store updates an extension.
    writeFileSync(manifestPath, JSON.stringify({ ...manifest, version }));
    const reloaded = await reloadExtension(old, page);
    const panel = await old.context.newPage();
    await panel.goto(old.url('sidepanel.html'));
    assert.equal(await panel.evaluate(() => chrome.runtime.getManifest().version), version);
    const notice = panel.getByTestId('whats-new');
    await notice.waitFor();
    // The update's handler has run: it opened no welcome page.
    assert.equal(old.context.pages().filter((p) => p.url().endsWith('/welcome.html')).length, 0);
    const line = english({ key: `whatsNew_${version.replaceAll('.', '_')}`, args: [version] });
    assert.equal(await notice.locator('p').innerText(), line);
    assert.match(line, new RegExp(`^New in ${version.replaceAll('.', '\\.')}:`));
    await shoot(panel, 'whats-new');
    await notice.getByTestId('whats-new-dismiss').click();
    await notice.waitFor({ state: 'detached' });
    await panel.reload();
    await panel.getByTestId('input').waitFor();
    await panel.getByTestId('worker-status').and(panel.locator('[data-state="ok"]')).waitFor();
    assert.equal(await notice.count(), 0, 'it stays dismissed');
    const stored = async (p) => JSON.parse(await p.evaluate(async () => (await chrome.storage.local.get('whats_new')).whats_new));
    assert.deepEqual(await stored(panel), { version, dismissed: true });
    // A reload of the same version (what a developer does) is an update from it: nothing new.
    await reloadExtension(old, panel, reloaded);
    const again = await old.context.newPage();
    await again.goto(old.url('sidepanel.html'));
    await again.getByTestId('worker-status').and(again.locator('[data-state="ok"]')).waitFor();
    assert.deepEqual(await stored(again), { version, dismissed: true });
    assert.equal(await again.getByTestId('whats-new').count(), 0);
  } finally {
    await old.close();
    rmSync(copy, { recursive: true, force: true });
  }
});

/** `chrome.runtime.reload()` from `page`; resolves with the new worker once it runs. */
async function reloadExtension(b, page, previous = b.worker) {
  await page.evaluate(() => chrome.runtime.reload()).catch(() => {});
  for (const deadline = Date.now() + 20_000; Date.now() < deadline;) {
    const worker = b.context.serviceWorkers().find((w) => w.url() === b.url('background.js') && w !== previous);
    if (worker && await worker.evaluate(() => true).catch(() => false)) return worker;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('the extension did not start again after chrome.runtime.reload()');
}
