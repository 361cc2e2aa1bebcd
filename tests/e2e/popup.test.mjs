// The settings popup end to end: a real server-everything added, tested and listed through the
// popup's UI, a gemini-cli file imported, export, the Gemini card, and screenshots of the popup
// in English and Japanese, light and dark.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { askedAgainAfterRestart, countOf, launch, requestsAtOpen, screenshot, stopServiceWorkers } from './harness.mjs';
import { startEverything, startSlowServer } from './servers.mjs';

let browser;
let everything;
const files = mkdtempSync(join(tmpdir(), 'gemipanel-popup-'));

before(async () => {
  everything = await startEverything();
  browser = await launch();
});
after(async () => {
  await browser?.close();
  await everything?.stop();
});

async function openPopup(b = browser) {
  const page = await b.context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(b.url('popup.html'));
  await page.getByTestId('worker-status').and(page.locator('[data-state="ok"]')).waitFor();
  page.errors = errors;
  return page;
}

/** The stored settings, as the worker answers `get_settings`. */
async function settingsOf(page) {
  const reply = await page.evaluate(() =>
    chrome.runtime.sendMessage({ id: 1, request: { type: 'get_settings' } }));
  assert.equal(reply.response.type, 'settings', JSON.stringify(reply.response));
  return reply.response.settings;
}

test('an opening popup asks the worker for each thing once, and again after a restart', async () => {
  const page = await browser.context.newPage();
  const atOpen = await requestsAtOpen(page, browser.url('popup.html'));
  // The worker's greeting and the first settings each used to ask for the status and the
  // servers again: three listings of every server at each open.
  for (const type of ['status', 'list_servers', 'get_settings']) {
    assert.equal(countOf(atOpen, type), 1, `${type} at open: ${atOpen}`);
  }
  // A worker Chrome stopped while the popup is open: its status and servers start over.
  await askedAgainAfterRestart(page, 'list_servers');
  await page.close();
});

test('a popup whose worker is stopped twice within a second still hears from the next one', async () => {
  const page = await browser.context.newPage();
  await requestsAtOpen(page, browser.url('popup.html'));
  await stopServiceWorkers(page);
  // The port reconnected at once: the new worker's greeting has the servers listed again.
  await page.waitForFunction(() => globalThis.__workerRequests.filter((t) => t === 'list_servers').length >= 2);
  // Stopped again within a second of that connect: the port used to wait for a request to
  // reconnect on, which a popup never sends; it heard from no worker again.
  await stopServiceWorkers(page);
  await page.waitForFunction(() => globalThis.__workerRequests.filter((t) => t === 'list_servers').length >= 3,
    null, { timeout: 10_000 });
  await page.close();
});

test('a refused URL is explained next to the field as it is typed', async () => {
  const page = await openPopup();
  await page.getByTestId('add-server').click();
  await page.getByLabel('Name', { exact: true }).fill('Example');
  await page.getByLabel('URL', { exact: true }).fill('http://example.com/mcp');
  const note = page.locator('#server-url-note');
  await note.waitFor();
  assert.match(await note.innerText(), /http is only allowed for this computer/);
  assert.equal(await page.locator('#server-url').getAttribute('aria-invalid'), 'true');
  assert.ok(await page.getByTestId('save-server').isDisabled(), 'Save waits for a valid URL');
  assert.ok(await page.getByTestId('test-connection').isDisabled());
  // The browser's own parser reads the URL: garbage is refused, and so is a space in the host,
  // which Chromium alone would let through as %20.
  for (const bad of ['not a url', 'https://exa mple.com/mcp']) {
    await page.getByLabel('URL', { exact: true }).fill(bad);
    await note.filter({ hasText: /This is not a valid URL/ }).waitFor({ timeout: 2_000 });
  }
  // Headers are checked as they are typed too.
  await page.getByLabel('Headers (JSON)').fill('{"Authorization": 5}');
  assert.match(await page.locator('#server-headers-note').innerText(), /Authorization.*must be a string/);
  await screenshot(page, 'popup-url-refused');
  // A private address asks for the "local network server" tick, and the tick clears it.
  await page.getByLabel('URL', { exact: true }).fill('https://192.168.1.20/mcp');
  assert.match(await note.innerText(), /private network address/);
  // An internationalised name is judged in its xn-- form (no longer refused for being non-ASCII).
  await page.getByLabel('URL', { exact: true }).fill('https://bücher.local/mcp');
  await note.filter({ hasText: /private network address/ }).waitFor({ timeout: 2_000 });
  await page.getByLabel('Local network server').check();
  await note.and(page.locator('[hidden]')).waitFor({ state: 'attached' });
  await page.getByRole('button', { name: 'Cancel' }).click();
  assert.equal(await page.getByTestId('server-form').count(), 0);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('server-everything is added through the form: tested, saved and listed', async () => {
  const page = await openPopup();
  await page.getByTestId('add-server').click();
  await page.getByLabel('Name', { exact: true }).fill('Everything');
  await page.getByLabel('URL', { exact: true }).fill(everything.url);
  await page.getByLabel('Timeout (seconds)').fill('30');
  await page.getByLabel('Never these tools').fill('trigger-long-running-operation');
  await page.getByTestId('test-connection').click();
  const result = page.getByTestId('test-result');
  await result.locator('[data-state="connected"]').waitFor({ timeout: 20_000 });
  const tools = await result.locator('.chip').allInnerTexts();
  assert.ok(tools.includes('echo'), `tools: ${tools}`);
  assert.ok(tools.includes('get-sum'), `tools: ${tools}`);
  await screenshot(page, 'popup-test-connection');

  await page.getByTestId('save-server').click();
  const row = page.locator('[data-testid="server-row"][data-name="Everything"]');
  await row.waitFor();
  assert.equal(await page.getByTestId('server-form').count(), 0, 'the form closes on save');
  assert.match(await row.innerText(), new RegExp(everything.url.replace(/[.:/]/g, '\\$&')));
  assert.match(await row.getAttribute('data-state'), /^(idle|connecting|ready)$/);

  const stored = (await settingsOf(page)).servers.find((s) => s.name === 'Everything');
  assert.equal(stored.url, everything.url);
  assert.equal(stored.timeout_ms, 30_000);
  assert.deepEqual(stored.exclude_tools, ['trigger-long-running-operation']);
  assert.equal(stored.enabled_by_default, true);
  assert.match(stored.id, /^srv_[0-9a-f]{16}$/);
  await screenshot(page, 'popup-server-listed');

  // The side panel offers the new server in its tools menu, switched on for new chats.
  const panel = await browser.context.newPage();
  await panel.goto(browser.url('sidepanel.html'));
  const menu = panel.getByTestId('tools-menu');
  await menu.locator('summary').click();
  const entry = menu.getByLabel('Everything');
  await entry.waitFor();
  assert.equal(await entry.isChecked(), true, 'enabled by default for new chats');
  await screenshot(panel, 'sidepanel-tools-menu');
  await panel.close();

  // The same name again is refused next to the name field, by the same rules the worker uses.
  await page.getByTestId('add-server').click();
  await page.getByLabel('Name', { exact: true }).fill('everything');
  await page.getByLabel('URL', { exact: true }).fill(everything.url);
  await page.getByTestId('save-server').click();
  assert.match(await page.locator('#server-name-note').innerText(), /already|exists|name/i);
  await page.getByRole('button', { name: 'Cancel' }).click();
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('Test connection lists the readable tools and names the ones it could not read', async () => {
  const server = await startSlowServer({
    delayMs: 0,
    name: 'half-broken',
    tools: ['fine', { name: 'broken', inputSchema: 'not a schema' }, { description: 'no name' }],
  });
  try {
    const page = await openPopup();
    await page.getByTestId('add-server').click();
    await page.getByLabel('URL', { exact: true }).fill(server.url);
    await page.getByTestId('test-connection').click();
    const result = page.getByTestId('test-result');
    await result.locator('[data-state="connected"]').waitFor({ timeout: 20_000 });
    assert.deepEqual(await result.locator('.chip').allInnerTexts(), ['fine']);
    const unreadable = result.locator('[data-state="unreadable"]');
    assert.match(await unreadable.innerText(), /2 listed tools could not be read/);
    const items = await unreadable.locator('li').allInnerTexts();
    assert.equal(items.length, 2, items.join('\n'));
    assert.match(items[0], /^broken — This tool could not be read: .*inputSchema/);
    assert.match(items[1], /missing field `name`/);
    await screenshot(page, 'popup-test-unreadable-tools');
    await page.getByRole('button', { name: 'Cancel' }).click();
    assert.deepEqual(page.errors, []);
    await page.close();
  } finally {
    await server.stop();
  }
});

test('a gemini-cli settings.json is previewed, then applied; command servers come in as local servers to allow', async () => {
  const file = join(files, 'settings.json');
  writeFileSync(file, JSON.stringify({
    theme: 'Default',
    mcpServers: {
      imported: { httpUrl: everything.url, timeout: 15000, trust: true, includeTools: ['echo'] },
      filesystem: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/tmp'] },
      socket: { type: 'websocket', url: 'wss://mcp.example.com/ws' },
    },
  }, null, 2));
  const page = await openPopup();
  await page.getByTestId('import-file').setInputFiles(file);
  const preview = page.getByTestId('import-preview');
  await preview.waitFor();
  const text = await preview.innerText();
  assert.match(text, /gemini-cli/);
  assert.match(await preview.locator('.added').innerText(), /imported/);
  assert.match(await preview.locator('.added').innerText(), /npx -y @modelcontextprotocol\/server-filesystem \/tmp/);
  assert.match(await preview.locator('.skipped').innerText(), /socket/);
  await screenshot(page, 'popup-import-preview');

  await page.getByTestId('apply-import').click();
  await page.getByTestId('import-status').locator('.ok').waitFor();
  await page.locator('[data-testid="server-row"][data-name="imported"]').waitFor();
  const stored = (await settingsOf(page)).servers.find((s) => s.name === 'imported');
  assert.equal(stored.trust, true);
  assert.deepEqual(stored.include_tools, ['echo']);
  // The command server waits for the person to allow its command line; it is not kept here.
  const local = page.locator('[data-testid="server-row"][data-name="filesystem"]');
  await local.and(page.locator('[data-state="needs-confirmation"]')).waitFor();
  const filesystem = (await settingsOf(page)).servers.find((s) => s.name === 'filesystem');
  assert.equal(filesystem.url, '');
  assert.equal(filesystem.confirmed_command, undefined);
  await page.evaluate((id) => chrome.runtime.sendMessage({ id: 9, request: { type: 'edit_settings', edit: { type: 'remove_server', id } } }), filesystem.id);
  await local.waitFor({ state: 'detached' });

  // Cancel leaves everything as it was.
  await page.getByTestId('import-file').setInputFiles(file);
  await preview.waitFor();
  await preview.getByRole('button', { name: 'Cancel' }).click();
  assert.equal(await preview.count(), 0);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('a VS Code mcp.json and a Claude Code .mcp.json are named for their client, and what VS Code asks for is left to enter', async () => {
  const vscode = join(files, 'mcp.json');
  writeFileSync(vscode, `// .vscode/mcp.json (comments are allowed)
{
  "inputs": [{ "type": "promptString", "id": "token", "description": "Team token", "password": true }],
  "servers": {
    "from-vscode": {
      "type": "http",
      "url": "${everything.url}",
      "headers": { "Authorization": "Bearer \${input:token}", "X-Team": "blue" }
    }
  }
}`);
  const page = await openPopup();
  await page.getByTestId('import-file').setInputFiles(vscode);
  const preview = page.getByTestId('import-preview');
  await preview.waitFor();
  assert.match(await preview.innerText(), /VS Code/);
  assert.match(await preview.locator('.added').innerText(), /from-vscode/);
  assert.match(await preview.locator('.warnings').innerText(), /Authorization.*VS Code asks for.*Team token/);
  await screenshot(page, 'popup-import-vscode');
  await page.getByTestId('apply-import').click();
  await page.getByTestId('import-status').locator('.ok').waitFor();
  await page.locator('[data-testid="server-row"][data-name="from-vscode"]').waitFor();
  const stored = (await settingsOf(page)).servers.find((s) => s.name === 'from-vscode');
  assert.equal(stored.url, everything.url);
  assert.deepEqual(Object.keys(stored.headers ?? {}), ['X-Team'], 'the asked-for value is not imported');
  await page.evaluate((id) => chrome.runtime.sendMessage({ id: 9, request: { type: 'edit_settings', edit: { type: 'remove_server', id } } }), stored.id);

  const claudeCode = join(files, '.mcp.json');
  writeFileSync(claudeCode, JSON.stringify({
    mcpServers: { 'from-claude-code': { type: 'http', url: everything.url } },
  }));
  await page.getByTestId('import-file').setInputFiles(claudeCode);
  await preview.waitFor();
  assert.match(await preview.innerText(), /Claude Code/);
  assert.doesNotMatch(await preview.innerText(), /Claude Desktop/);
  await preview.getByRole('button', { name: 'Cancel' }).click();
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('a server is edited and removed after confirmation', async () => {
  const page = await openPopup();
  const row = page.locator('[data-testid="server-row"][data-name="imported"]');
  await row.getByRole('button', { name: 'Edit' }).click();
  assert.equal(await page.getByLabel('Name', { exact: true }).inputValue(), 'imported');
  assert.equal(await page.getByLabel('Timeout (seconds)').inputValue(), '15');
  assert.equal(await page.getByLabel('Only these tools').inputValue(), 'echo');
  await page.getByLabel('Name', { exact: true }).fill('renamed');
  await page.getByTestId('save-server').click();
  const renamed = page.locator('[data-testid="server-row"][data-name="renamed"]');
  await renamed.waitFor();

  await renamed.getByRole('button', { name: 'Remove' }).click();
  await screenshot(page, 'popup-confirm-remove');
  await renamed.getByRole('button', { name: 'Cancel' }).click();
  assert.equal(await renamed.count(), 1, 'Cancel keeps the server');
  await renamed.getByRole('button', { name: 'Remove' }).click();
  await renamed.locator('button.danger').click();
  await renamed.waitFor({ state: 'detached' });
  assert.ok(!(await settingsOf(page)).servers.some((s) => s.name === 'renamed'));
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('the Gemini key is masked, saved, and checked', async () => {
  const page = await openPopup();
  const key = page.getByLabel('API key', { exact: true });
  assert.equal(await key.getAttribute('type'), 'password');
  await key.fill('AIzaTestKey123');
  await page.getByTestId('toggle-key').click();
  assert.equal(await key.getAttribute('type'), 'text');
  await page.getByLabel('Default model').fill('gemini-2.5-pro');
  await page.getByTestId('save-gemini').click();
  await page.getByTestId('gemini-save-result').getByText('Saved.').waitFor();
  const gemini = (await settingsOf(page)).gemini;
  assert.equal(gemini.api_key, 'AIzaTestKey123');
  assert.equal(gemini.model, 'gemini-2.5-pro');

  // No network here: Check must end in an error shown under the key, not spin forever.
  await page.getByTestId('check-key').click();
  await page.getByTestId('check-result').locator('.error').waitFor({ timeout: 30_000 });
  assert.match(await page.getByTestId('check-result').innerText(), /Check failed/);
  await screenshot(page, 'popup-gemini-check-failed');
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('export downloads the settings without secrets unless asked', async () => {
  const page = await openPopup();
  const exported = async () => {
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByTestId('export').click(),
    ]);
    assert.equal(download.suggestedFilename(), 'gemipanel-settings.json');
    return readFileSync(await download.path(), 'utf8');
  };
  // A local server whose command line carries a token.
  const added = await page.evaluate(() => chrome.runtime.sendMessage({ id: 77, request: { type: 'edit_settings', edit: {
    type: 'add_server', id: 'srv_0000000000000077',
    server: { name: 'Tokened', url: '', local: { command: 'gh-mcp', args: ['--token', 'ghp_FAKE77', '--repo', 'a/b'] } },
  } } }));
  assert.equal(added?.response?.type, 'settings', JSON.stringify(added));
  const plain = await exported();
  assert.doesNotMatch(plain, /AIzaTestKey123/);
  assert.doesNotMatch(plain, /ghp_FAKE77/);
  assert.match(plain, /Everything/);
  assert.equal(await page.getByTestId('export-blanked').innerText(),
    'These arguments looked like secrets and were left blank: Tokened: --token. Fill them in after importing.');
  await screenshot(page, 'popup-export-blanked');
  await page.getByLabel(/Include secrets/).check();
  const full = await exported();
  assert.match(full, /AIzaTestKey123/);
  assert.match(full, /ghp_FAKE77/);
  assert.equal(await page.getByTestId('export-blanked').count(), 0, 'nothing was blanked');
  await page.evaluate(() => chrome.runtime.sendMessage({ id: 78, request: { type: 'edit_settings', edit: {
    type: 'remove_server', id: 'srv_0000000000000077' } } }));
  await page.close();
});

test('settings that cannot be read: the popup offers to save a copy, try again or start fresh', async () => {
  const page = await openPopup();
  const before = await page.evaluate(() => chrome.storage.local.get('settings'));
  const damaged = { version: 3, gemini: { model: 'gemini-2.5-flash' }, servers: 7 };
  await page.evaluate((d) => chrome.storage.local.set({ settings: d }), damaged);
  await page.reload();
  const banner = page.getByTestId('settings-problem');
  await banner.waitFor();
  assert.match(await banner.innerText(), /could not be read: settings: servers: invalid type/);
  assert.doesNotMatch(await banner.innerText(), /could not be read.*could not be read/);
  await screenshot(page, 'popup-settings-problem');
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByTestId('recover-export').click(),
  ]);
  assert.deepEqual(JSON.parse(readFileSync(await download.path(), 'utf8')), damaged);
  await page.getByTestId('recover-restore').click();
  await banner.locator('.note.error').waitFor();
  assert.match(await banner.locator('.note.error').innerText(), /servers: invalid type/);
  await page.getByTestId('recover-start-fresh').click();
  await banner.waitFor({ state: 'detached' });
  // Back to work: the earlier document is put back for the tests that follow.
  await page.evaluate((b) => chrome.storage.local.set(b), before);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('moving a server with headers to another site asks before the headers go along', async () => {
  const page = await openPopup();
  await page.getByTestId('add-server').click();
  await page.locator('#server-name').fill('Keyed');
  await page.locator('#server-url').fill(everything.url);
  await page.locator('#server-headers').fill('{"X-Api-Key": "FAKE-moving-key"}');
  await page.getByTestId('save-server').click();
  const row = page.locator('[data-testid="server-row"][data-name="Keyed"]');
  await row.waitFor();
  await row.getByRole('button', { name: /Edit/ }).click();
  await page.locator('#server-url').fill(everything.url.replace('127.0.0.1', 'localhost'));
  const confirm = page.locator('#server-headers-move');
  await confirm.waitFor();
  await screenshot(page, 'popup-headers-to-new-origin');
  await page.getByTestId('save-server').click();
  const refusal = page.locator('#server-headers-note.error');
  await refusal.waitFor();
  assert.match(await refusal.innerText(), /enter its headers again/);
  await confirm.check();
  await page.getByTestId('save-server').click();
  await page.getByTestId('server-form').waitFor({ state: 'detached' });
  const reply = await page.evaluate(() => chrome.runtime.sendMessage({ id: 2, request: { type: 'export_settings', include_secrets: true } }));
  const saved = JSON.parse(reply.response.export.text).servers.find((s) => s.name === 'Keyed');
  assert.match(saved.url, /localhost/);
  assert.equal(saved.headers['X-Api-Key'], 'FAKE-moving-key');
  // The pages never see the value.
  const shown = (await settingsOf(page)).servers.find((s) => s.name === 'Keyed');
  assert.equal(shown.headers['X-Api-Key'], '');
  await row.getByRole('button', { name: /Remove/ }).click();
  await row.getByRole('button', { name: 'Remove', exact: true }).click();
  await row.waitFor({ state: 'detached' });
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('a server the browser may not reach yet offers Allow access', async () => {
  const page = await openPopup();
  const id = `srv_${'ab'.repeat(8)}`;
  const added = await page.evaluate((id) => chrome.runtime.sendMessage({ id: 3, request: { type: 'edit_settings',
    edit: { type: 'add_server', id, server: { name: 'Far away', url: 'https://mcp.unreachable.invalid/mcp' } } } }), id);
  assert.equal(added.response.type, 'settings', JSON.stringify(added));
  const row = page.locator('[data-testid="server-row"][data-name="Far away"]');
  await row.and(page.locator('[data-state="needs-permission"]')).waitFor({ timeout: 15_000 });
  assert.ok(await row.getByTestId('allow-access').isVisible());
  assert.match(await row.innerText(), /needs your permission to connect/i);
  await screenshot(page, 'popup-needs-permission');
  await page.evaluate((id) => chrome.runtime.sendMessage({ id: 4, request: { type: 'edit_settings', edit: { type: 'remove_server', id } } }), id);
  await page.close();
});

test('Open chat opens the side panel from the click and closes the popup', async () => {
  const page = await openPopup();
  const closed = page.waitForEvent('close');
  await page.getByTestId('open-chat').click();
  const outcome = await Promise.race([
    closed.then(() => 'closed'),
    page.locator('.topbar-error').waitFor().then(() => page.locator('.topbar-error').innerText()),
  ]);
  assert.equal(outcome, 'closed');
  // The panel's context registers a moment after the popup closes, and its documentUrl
  // is empty until the page has committed its navigation.
  const loaded = (panels) => panels.length === 1 && /sidepanel\.html$/.test(panels[0].documentUrl);
  let panels = [];
  for (let i = 0; i < 100 && !loaded(panels); i++) {
    if (i > 0) await new Promise((r) => setTimeout(r, 100));
    panels = await browser.worker.evaluate(() =>
      chrome.runtime.getContexts({ contextTypes: ['SIDE_PANEL'] }));
  }
  assert.ok(loaded(panels), JSON.stringify(panels));
});

for (const [locale, colorScheme] of [['en-US', 'light'], ['en-US', 'dark'], ['ja', 'light'], ['ja', 'dark']]) {
  test(`screenshots: ${locale} ${colorScheme}`, async () => {
    const b = await launch({ locale, colorScheme });
    try {
      const page = await openPopup(b);
      const tag = `${locale.slice(0, 2)}-${colorScheme}`;
      if (locale === 'ja') assert.equal(await page.locator('#servers-heading').innerText(), 'MCP サーバー');
      await page.getByTestId('add-server').click();
      await page.locator('#server-name').fill('Everything');
      await page.locator('#server-url').fill('http://example.com/mcp');
      await page.locator('#server-url-note').waitFor();
      await screenshot(page, `popup-${tag}-refused`);
      await page.locator('#server-url').fill(everything.url);
      await page.getByTestId('test-connection').click();
      await page.getByTestId('test-result').locator('[data-state="connected"]').waitFor({ timeout: 20_000 });
      await screenshot(page, `popup-${tag}-tested`);
      await page.getByTestId('save-server').click();
      await page.locator('[data-testid="server-row"][data-name="Everything"]').waitFor();
      await screenshot(page, `popup-${tag}`);
      assert.deepEqual(page.errors, []);
    } finally {
      await b.close();
    }
  });
}
