// Local (stdio) MCP servers through the native bridge, in real Chromium: the bridge installed in
// the test profile's NativeMessagingHosts/ as `gemipanel-bridge install` installs it, a Claude
// Desktop configuration imported in the popup, its command line confirmed, the filesystem
// server's list_directory called from the chat, the worker stopped, and the next call still
// working. Without the bridge, the person is told the one command that installs it. A server
// that crashes shows so at once, with its stderr, and is ready again after the next call; its
// errors name it as the person does. The line to allow is the one the bridge will run: its
// $VARs expanded, what changes what runs shown with its value, and a change of an expanded
// value asks again. A command allowed while pages keep listing the servers ends ready.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launch, screenshot, stopServiceWorkers, english } from './harness.mjs';
import { startFakeGemini, textChunks, functionCallChunk } from '../fixtures/fake-gemini/server.mjs';

const API_KEY = 'test-key';
const filesystemServer = fileURLToPath(
  new URL('../node_modules/@modelcontextprotocol/server-filesystem/dist/index.js', import.meta.url),
);

const cleanups = [];
after(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

/** The popup of a fresh browser (closed after the tests); `options` go to `launch`. */
async function openPopup(options) {
  const browser = await launch(options);
  cleanups.push(() => browser.close());
  const popup = await browser.context.newPage();
  await popup.goto(browser.url('popup.html'));
  return popup;
}

/** A one-shot request to the worker from `page`; its response. */
async function request(page, req) {
  const reply = await page.evaluate((m) => chrome.runtime.sendMessage(m), { id: Date.now(), request: req });
  assert.equal(reply?.kind, 'response', JSON.stringify(reply));
  return reply.response;
}

/**
 * Waits until `row` says its server is ready; if it does not within `timeout`, keeps a
 * screenshot named `shot` and says what the row shows (`context` goes before the message).
 */
async function untilReady(popup, row, shot, timeout, context = '') {
  await row.and(popup.locator('[data-state="ready"]')).waitFor({ timeout }).catch(async (e) => {
    await screenshot(popup, shot);
    const shown = await row.evaluate((el) => `${el.dataset.state}: ${el.innerText}`).catch((err) => String(err));
    throw new Error(`${context}${e.message}\nThe row: ${shown}`);
  });
}

/** A Claude Desktop configuration with the filesystem server on `dir`. */
function claudeConfig(dir) {
  const file = join(mkdtempSync(join(tmpdir(), 'gemipanel-claude-')), 'claude_desktop_config.json');
  writeFileSync(file, JSON.stringify({
    globalShortcut: '',
    mcpServers: { filesystem: { command: process.execPath, args: [filesystemServer, dir] } },
  }, null, 2));
  return file;
}

/** The function responses of the last turn the fake Gemini received. */
function lastFunctionResponses(fake) {
  const posts = fake.requests().filter((r) => r.method === 'POST');
  const turn = posts[posts.length - 1].body.contents.at(-1);
  return turn.parts.map((p) => p.functionResponse).filter(Boolean);
}

test('a Claude Desktop stdio server is imported, confirmed once and called from the chat, also after the worker stopped', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'gemipanel-files-'));
  writeFileSync(join(dir, 'hello.txt'), 'hi');
  const fake = await startFakeGemini({ apiKey: API_KEY });
  const browser = await launch({ bridge: true });
  cleanups.push(() => fake.close(), () => browser.close());

  // The popup: import the file; the preview shows the command line that will run.
  const popup = await browser.context.newPage();
  await popup.goto(browser.url('popup.html'));
  await popup.evaluate(({ key, base }) => chrome.storage.local.set({
    settings: { version: 6, gemini: { api_key: key, base_url: base }, servers: [] },
  }), { key: API_KEY, base: fake.url });
  await popup.reload();
  await popup.getByTestId('import-file').setInputFiles(claudeConfig(dir));
  const preview = popup.getByTestId('import-preview');
  await preview.waitFor();
  assert.match(await preview.innerText(), /server-filesystem/);
  await screenshot(popup, 'local-import-preview');
  await popup.getByTestId('apply-import').click();

  // Nothing runs before the person has seen and allowed the command line.
  const row = popup.locator('[data-testid="server-row"][data-name="filesystem"]');
  await row.and(popup.locator('[data-state="needs-confirmation"]')).waitFor();
  const shown = await row.getByTestId('command-to-confirm').innerText();
  assert.ok(shown.includes(filesystemServer) && shown.includes(dir), shown);
  await screenshot(popup, 'local-needs-confirmation');
  await row.getByTestId('confirm-command').click();
  await row.and(popup.locator('[data-state="ready"]')).waitFor({ timeout: 30_000 });
  assert.match(await row.innerText(), /\d+ tools?/);
  // What the server wrote to stderr, kept by the bridge.
  await row.getByTestId('server-log').locator('summary').click();
  await row.getByTestId('server-log-text').getByText(/running on stdio/).waitFor();
  await screenshot(popup, 'local-ready');
  const settings = (await request(popup, { type: 'get_settings' })).settings;
  const server = settings.servers.find((s) => s.name === 'filesystem');
  await request(popup, { type: 'edit_settings', edit: { type: 'set_trust', id: server.id, trust: true } });

  // The chat: Gemini lists the folder through the bridge.
  const panel = await browser.context.newPage();
  await panel.goto(browser.url('sidepanel.html'));
  await panel.getByTestId('worker-status').and(panel.locator('[data-state="ok"]')).waitFor();
  const ask = async (text) => {
    const input = panel.getByTestId('input');
    await input.fill(text);
    await input.press('Enter');
  };
  fake.script([
    { chunks: [functionCallChunk([{ name: 'mcp_filesystem_list_directory', args: { path: dir } }])] },
    { chunks: textChunks('There is one file.') },
  ]);
  await ask('What is in the folder?');
  await panel.getByTestId('reply').last().getByText('There is one file.').waitFor();
  let [listing] = lastFunctionResponses(fake);
  assert.match(JSON.stringify(listing.response), /hello\.txt/);
  await screenshot(panel, 'local-chat-list-directory');

  // Chrome stops the worker (and with its port, the bridge and the server); the next call
  // starts them again and the client initializes anew.
  writeFileSync(join(dir, 'second.txt'), 'two');
  await stopServiceWorkers(panel);
  fake.script([
    { chunks: [functionCallChunk([{ name: 'mcp_filesystem_list_directory', args: { path: dir } }])] },
    { chunks: textChunks('Now there are two.') },
  ]);
  await ask('And now?');
  await panel.getByTestId('reply').last().getByText('Now there are two.').waitFor({ timeout: 30_000 });
  [listing] = lastFunctionResponses(fake);
  assert.match(JSON.stringify(listing.response), /second\.txt/);
});

test('without the bridge installed, a local server says which command installs it', async () => {
  const popup = await openPopup({ bridge: false });
  const id = 'srv_0123456789abcdef';
  const local = { command: process.execPath, args: [filesystemServer, tmpdir()] };
  const added = await request(popup, {
    type: 'edit_settings',
    edit: { type: 'add_server', id, server: { name: 'files', url: '', local } },
  });
  assert.equal(added.type, 'settings', JSON.stringify(added));
  const line = (await request(popup, { type: 'list_servers' })).servers[0].command_line;
  await request(popup, { type: 'edit_settings', edit: { type: 'confirm_command', id, command_line: line } });
  const listed = await request(popup, { type: 'list_tools', server_id: id, refresh: true });
  const said = english(listed.error ?? listed);
  assert.match(said, /bridge.*not installed.*cargo run --release -p gemipanel-bridge -- install/s, said);
  await popup.reload();
  const row = popup.locator('[data-testid="server-row"][data-name="files"]');
  await row.and(popup.locator('[data-state="error"]')).waitFor();
  assert.match(await row.innerText(), /gemipanel-bridge -- install/);
  await screenshot(popup, 'local-bridge-missing');
});

test('the popup adds a local server: the command line is previewed, tested, and saving allows it', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'gemipanel-form-'));
  writeFileSync(join(dir, 'notes.txt'), 'n');
  const popup = await openPopup({ bridge: true, locale: 'ja' });
  await popup.getByTestId('add-server').click();
  await popup.getByTestId('server-kind-local').check();
  await popup.locator('#server-name').fill('notes');
  await popup.locator('#server-command').fill(process.execPath);
  await popup.locator('#server-args').fill(`${filesystemServer}\n${dir}`);
  await popup.locator('#server-env').fill('NOTES_TOKEN=secret-value');
  // The preview turns into the bridge's line once the typing stops: that is what runs.
  await popup.getByTestId('command-preview').locator('[data-expanded="true"]').waitFor();
  const preview = await popup.getByTestId('command-preview').innerText();
  assert.ok(preview.includes('NOTES_TOKEN=…') && preview.includes(dir), preview);
  assert.ok(!preview.includes('secret-value'), 'environment values are not shown');
  await popup.getByTestId('test-connection').click();
  const connected = popup.locator('[data-state="connected"]');
  await connected.waitFor({ timeout: 30_000 });
  assert.match(await connected.innerText(), /list_directory/);
  await screenshot(popup, 'local-form-tested-ja');
  await popup.getByTestId('save-server').click();
  const row = popup.locator('[data-testid="server-row"][data-name="notes"]');
  await untilReady(popup, row, 'local-form-saved-not-ready', 30_000);
  const stored = (await request(popup, { type: 'get_settings' })).settings.servers[0];
  assert.equal(stored.local.env.NOTES_TOKEN, '', 'pages see no environment value');
});

/**
 * Adds local server `name` and allows its command line as the person would: the line the
 * listing shows is the bridge's, and allowing it names that line.
 */
async function addConfirmed(popup, id, name, local) {
  const added = await request(popup, {
    type: 'edit_settings',
    edit: { type: 'add_server', id, server: { name, url: '', local } },
  });
  assert.equal(added.type, 'settings', JSON.stringify(added));
  const view = (await request(popup, { type: 'list_servers' })).servers.find((s) => s.id === id);
  assert.equal(view.status.state, 'needs_confirmation', JSON.stringify(view.status));
  assert.equal(view.status.line.expanded, true, 'the bridge showed its line');
  const edit = { type: 'confirm_command', id, command_line: view.command_line, run: view.status.line.fingerprint };
  await request(popup, { type: 'edit_settings', edit });
}

test('a local server that crashes shows it at once, with its stderr, and is ready after the next call', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'gemipanel-crash-'));
  const pidFile = join(dir, 'pid');
  const popup = await openPopup({ bridge: true });
  const id = 'srv_00000000000c7a5e';
  // The shell leaves its pid (which `exec` keeps for the server) where the test can read it.
  const local = {
    command: 'sh',
    args: ['-c', 'echo $$ > "$0"; exec "$@"', pidFile, process.execPath, filesystemServer, dir],
  };
  await addConfirmed(popup, id, 'fragile', local);
  const listed = await request(popup, { type: 'list_tools', server_id: id, refresh: true });
  assert.ok(listed.tools?.length, JSON.stringify(listed));
  await popup.reload();
  const row = popup.locator('[data-testid="server-row"][data-name="fragile"]');
  await row.and(popup.locator('[data-state="ready"]')).waitFor();

  // No request follows the crash: the status comes from the bridge's word alone.
  process.kill(Number(readFileSync(pidFile, 'utf8').trim()), 'SIGKILL');
  await row.and(popup.locator('[data-state="error"]')).waitFor({ timeout: 10_000 });
  const said = await row.innerText();
  assert.match(said, /fragile/, said);
  assert.match(said, /signal 9/, said);
  // The row names the server already; its status does not say the name again.
  const status = await row.locator('.server-status').innerText();
  assert.doesNotMatch(status, /fragile/, status);
  assert.match(said, /running on stdio/, said);
  await screenshot(popup, 'local-crashed');

  // The bridge restarted it; the next call opens a new session and the server is ready again.
  const again = await request(popup, { type: 'list_tools', server_id: id, refresh: true });
  assert.ok(again.tools?.length, JSON.stringify(again));
  await row.and(popup.locator('[data-state="ready"]')).waitFor();
});

test("a local server's errors name it, not an address the person never saw", async () => {
  const popup = await openPopup({ bridge: true });
  const id = 'srv_000000000000a11e';
  await addConfirmed(popup, id, 'my files', { command: process.execPath, args: [filesystemServer, tmpdir()] });
  // The filesystem server offers no resources: its answer is a JSON-RPC error.
  const read = await request(popup, { type: 'read_resource', server_id: id, uri: 'file:///nothing' });
  assert.equal(read.type, 'error', JSON.stringify(read));
  const said = english(read.error);
  assert.match(said, /“my files”/, said);
  assert.doesNotMatch(said, /stdio:|srv_/, said);
});

test('the line to allow is the one the bridge runs, what changes what runs shown; a change of an expanded value asks again', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'gemipanel-expand-'));
  writeFileSync(join(dir, 'notes.txt'), 'n');
  const env = { GEMIPANEL_E2E_DIR: dir, GEMIPANEL_E2E_TOKEN: 'tok-first' };
  const first = await launch({ bridge: true, keepProfile: true, env });
  cleanups.push(() => rmSync(first.profile, { recursive: true, force: true }));
  let popup = await first.context.newPage();
  await popup.goto(first.url('popup.html'));
  const id = 'srv_00000000000e4a1d';
  const local = {
    command: process.execPath,
    args: [filesystemServer, '$GEMIPANEL_E2E_DIR'],
    env: { NODE_OPTIONS: '--max-old-space-size=256', API_KEY: 'sk-secret-value', E2E_TOKEN: '${GEMIPANEL_E2E_TOKEN}' },
  };
  const added = await request(popup, {
    type: 'edit_settings',
    edit: { type: 'add_server', id, server: { name: 'notes', url: '', local } },
  });
  assert.equal(added.type, 'settings', JSON.stringify(added));
  await popup.reload();
  let row = popup.locator('[data-testid="server-row"][data-name="notes"]');
  await row.and(popup.locator('[data-state="needs-confirmation"]')).waitFor();
  await row.getByTestId('expansion-note').and(popup.locator('[data-state="expanded"]')).waitFor();

  // The line as it will run: the folder expanded, NODE_OPTIONS with its value, secrets not.
  const line = await row.getByTestId('command-to-confirm').innerText();
  assert.ok(line.includes(` ${dir}`) && !line.includes('$GEMIPANEL_E2E_DIR'), line);
  assert.ok(line.includes('NODE_OPTIONS=--max-old-space-size=256'), line);
  assert.ok(line.includes('API_KEY=…') && line.includes('E2E_TOKEN=…'), line);
  assert.ok(!line.includes('sk-secret-value') && !line.includes('tok-first'), line);
  const flagged = row.locator('[data-testid="run-changing-variable"][data-name="NODE_OPTIONS"]');
  assert.equal(await flagged.getAttribute('data-inherited'), 'false');
  assert.match(await row.getByTestId('expansion-note').innerText(), /\$GEMIPANEL_E2E_DIR/);
  assert.equal(await row.getByTestId('run-changed').count(), 0, 'nothing was allowed before');
  await screenshot(popup, 'local-confirm-run-line');
  await popup.emulateMedia({ colorScheme: 'dark' });
  await screenshot(popup, 'local-confirm-run-line-dark');
  await popup.emulateMedia({ colorScheme: 'light' });
  await row.getByTestId('confirm-command').click();
  await row.and(popup.locator('[data-state="ready"]')).waitFor({ timeout: 30_000 });
  await first.close();

  // Chrome started again with another value behind $GEMIPANEL_E2E_TOKEN: the line reads the
  // same (the value is a secret) but would run differently, so it runs only once allowed again.
  const second = await launch({
    bridge: true, keepProfile: true, locale: 'ja', profile: first.profile,
    env: { ...env, GEMIPANEL_E2E_TOKEN: 'tok-second' },
  });
  cleanups.push(() => second.close());
  popup = await second.context.newPage();
  await popup.goto(second.url('popup.html'));
  const refused = await request(popup, { type: 'list_tools', server_id: id, refresh: true });
  const said = english(refused.error ?? refused);
  assert.match(said, /notes.*changed since you allowed it/s, said);
  await popup.reload();
  row = popup.locator('[data-testid="server-row"][data-name="notes"]');
  await row.and(popup.locator('[data-state="needs-confirmation"]')).waitFor();
  assert.equal(await row.getByTestId('command-to-confirm').innerText(), line);
  await row.getByTestId('run-changed').waitFor();
  await screenshot(popup, 'local-confirm-again-ja');
  await popup.emulateMedia({ colorScheme: 'dark' });
  await screenshot(popup, 'local-confirm-again-ja-dark');
  await popup.emulateMedia({ colorScheme: 'light' });
  await row.getByTestId('confirm-command').click();
  await untilReady(popup, row, 'local-confirm-again-not-ready', 30_000);
  const listed = await request(popup, { type: 'list_tools', server_id: id, refresh: true });
  assert.ok(listed.tools?.some((t) => t.name === 'list_directory'), JSON.stringify(listed));
});

test('a command allowed while pages list the servers again and again ends ready, round after round', async () => {
  const popup = await openPopup({ bridge: true });
  const id = 'srv_00000000000ace01';
  const dirs = Array.from({ length: 7 }, () => mkdtempSync(join(tmpdir(), 'gemipanel-race-')));
  await addConfirmed(popup, id, 'racing', { command: process.execPath, args: [filesystemServer, dirs[0]] });
  await popup.reload();
  const row = popup.locator('[data-testid="server-row"][data-name="racing"]');
  for (let round = 1; round < dirs.length; round++) {
    // Another folder: a line to allow again.
    const local = { command: process.execPath, args: [filesystemServer, ...dirs.slice(0, round + 1)] };
    await request(popup, { type: 'edit_settings', edit: { type: 'update_server', id, changes: { local } } });
    await row.and(popup.locator('[data-state="needs-confirmation"]')).waitFor();
    const view = (await request(popup, { type: 'list_servers' })).servers.find((s) => s.id === id);
    const edit = { type: 'confirm_command', id, command_line: view.command_line, run: view.status.line.fingerprint };
    // Pages list the servers as the settings change, while the command just allowed starts: a
    // listing must not put back what the settings said before (a stale status, or a stop of
    // the server the allowing started; the second case of the test above met the latter once).
    const [allowed] = await popup.evaluate(async (edit) => {
      let id = 0;
      const send = (request) => chrome.runtime.sendMessage({ id: ++id, request });
      const sent = [send({ type: 'edit_settings', edit })];
      for (let i = 0; i < 40; i++) {
        if (i % 4 === 0) await new Promise((r) => setTimeout(r, 0));
        sent.push(send({ type: 'list_servers' }));
      }
      return Promise.all(sent);
    }, edit);
    assert.equal(allowed.response.type, 'settings', JSON.stringify(allowed));
    await untilReady(popup, row, 'local-allowed-while-listing-not-ready', 10_000, `round ${round}: `);
  }
});
