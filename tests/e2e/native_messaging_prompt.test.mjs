// `nativeMessaging` is optional (issue 27): the popup asks for it through Chrome's real
// permission prompt when a local server is first tested or saved, or from a local server's
// row. The prompt is drawn by the browser, which headless Chromium never answers, so this runs
// headed under Xvfb and answers it with the keyboard (TESTING.md, "Accepting Chrome's
// permission prompt"): refused, the popup says nothing was tested and which button to press;
// allowed from the row, the extension restarts once (Chrome binds `connectNative` only in
// contexts started after the grant) and the server goes on to ask for its command line; then
// Test connects.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launch, screenshot, english } from './harness.mjs';

const filesystemServer = fileURLToPath(
  new URL('../node_modules/@modelcontextprotocol/server-filesystem/dist/index.js', import.meta.url),
);

let xvfb;
let browser;
let popup;
let dir;

/** A display number nobody uses. */
function freeDisplay() {
  for (let n = 90 + Math.floor(Math.random() * 100); ; n++) {
    if (!existsSync(`/tmp/.X${n}-lock`)) return n;
  }
}

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'gemipanel-prompt-'));
  writeFileSync(join(dir, 'notes.txt'), 'n');
  const display = freeDisplay();
  xvfb = spawn('Xvfb', [`:${display}`, '-screen', '0', '1000x700x24', '-nolisten', 'tcp'], { stdio: 'ignore' });
  for (let i = 0; i < 50 && !existsSync(`/tmp/.X11-unix/X${display}`); i++) await new Promise((r) => setTimeout(r, 100));
  process.env.DISPLAY = `:${display}`;
  // The build as it is: `nativeMessaging` optional and not granted, as after a store install.
  // Developer mode on, as for anyone running an unpacked build: without it Chromium disables
  // a command-line extension that reloads (DISABLE_UNSUPPORTED_DEVELOPER_EXTENSION).
  const profile = mkdtempSync(join(tmpdir(), 'gemipanel-profile-'));
  mkdirSync(join(profile, 'Default'));
  writeFileSync(join(profile, 'Default', 'Preferences'), JSON.stringify({ extensions: { ui: { developer_mode: true } } }));
  browser = await launch({
    profile, headless: false, bridge: true, nativeMessaging: false,
    args: ['--window-position=0,0', '--window-size=1000,700'],
  });
  popup = await browser.context.newPage();
  await popup.goto(browser.url('popup.html'));
  await popup.bringToFront();
});
after(async () => {
  await browser?.close();
  xvfb?.kill();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** One screen pixel, to see Chrome's permission prompt come up (the page greys out). */
const pixel = () => execFileSync('import', ['-window', 'root', '-crop', '1x1+40+300', 'txt:-']).toString();

/**
 * Clicks `button` (which asks Chrome for a permission) and answers the prompt once it is up:
 * focus starts on Deny, so Return denies and Tab Return allows. Never keys without a prompt.
 */
async function clickAndAnswer(button, allow) {
  const before = pixel();
  await button.click();
  for (let i = 0; i < 100 && pixel() === before; i++) await new Promise((r) => setTimeout(r, 100));
  assert.notEqual(pixel(), before, 'the permission prompt did not come up');
  await new Promise((r) => setTimeout(r, 800));
  execFileSync('xdotool', ['key', '--delay', '100', ...(allow ? ['Tab', 'Return'] : ['Return'])]);
  for (let i = 0; i < 50 && pixel() !== before; i++) await new Promise((r) => setTimeout(r, 100));
}

async function request(req) {
  const reply = await popup.evaluate((m) => chrome.runtime.sendMessage(m), { id: Date.now(), request: req });
  assert.equal(reply?.kind, 'response', JSON.stringify(reply));
  return reply.response;
}

async function fillLocalForm(name) {
  await popup.getByTestId('add-server').click();
  await popup.getByTestId('server-kind-local').check();
  await popup.locator('#server-name').fill(name);
  await popup.locator('#server-command').fill(process.execPath);
  await popup.locator('#server-args').fill(`${filesystemServer}\n${dir}`);
}

test('refused after Test connection, the form says nothing was tested and what to press', async () => {
  assert.equal(await popup.evaluate(() => typeof chrome.runtime.connectNative), 'undefined', 'not granted at install');
  await fillLocalForm('notes');
  // The form says beforehand what Chrome is about to ask, and why.
  await popup.getByTestId('local-permission-why').waitFor();
  await clickAndAnswer(popup.getByTestId('test-connection'), false);
  const failed = popup.locator('[data-state="failed"]');
  await failed.waitFor();
  assert.equal(await failed.innerText(), english({ key: 'popupDeniedLocalTest' }));
  await screenshot(popup, 'native-messaging-denied');
  assert.equal(await popup.evaluate(() => typeof chrome.runtime.connectNative), 'undefined');
  await popup.reload();
});

test('a local server saved without the permission asks for it on its row; allowed, it goes on to its command line', async () => {
  const id = 'srv_000000000000a110';
  const added = await request({
    type: 'edit_settings',
    edit: { type: 'add_server', id, server: { name: 'files', url: '', local: { command: process.execPath, args: [filesystemServer, dir] } } },
  });
  assert.equal(added.type, 'settings', JSON.stringify(added));
  const listed = (await request({ type: 'list_servers' })).servers.find((s) => s.id === id);
  assert.equal(listed.status.state, 'needs_local_permission', JSON.stringify(listed.status));
  await popup.reload();
  const row = popup.locator('[data-testid="server-row"][data-name="files"]');
  await row.and(popup.locator('[data-state="needs-local-permission"]')).waitFor();
  await screenshot(popup, 'native-messaging-row');
  // Chrome binds `connectNative` only in contexts started after the grant: the extension
  // restarts once (its pages close), and the worker it starts reaches the bridge.
  const closed = new Promise((resolve) => popup.once('close', resolve));
  await clickAndAnswer(row.getByTestId('allow-local'), true);
  await closed;
  popup = await browser.context.newPage();
  // While the extension restarts its pages are refused (ERR_BLOCKED_BY_CLIENT).
  for (let i = 0; ; i++) {
    try {
      await popup.goto(browser.url('popup.html'));
      break;
    } catch (err) {
      if (i >= 50) throw err;
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  await popup.getByTestId('worker-status').and(popup.locator('[data-state="ok"]')).waitFor();
  assert.equal(await popup.evaluate(() => typeof chrome.runtime.connectNative), 'function');
  const again = popup.locator('[data-testid="server-row"][data-name="files"]');
  // The bridge now says how it would run the line: the person allows that one.
  await again.and(popup.locator('[data-state="needs-confirmation"]')).waitFor({ timeout: 30_000 });
  const view = (await request({ type: 'list_servers' })).servers.find((s) => s.id === id);
  assert.equal(view.status.line.expanded, true, JSON.stringify(view.status));
  await screenshot(popup, 'native-messaging-allowed');
});

test('once allowed, Test connection asks nothing more and connects', async () => {
  await fillLocalForm('notes');
  assert.equal(await popup.getByTestId('local-permission-why').count(), 0, 'no line about a prompt that will not come');
  // The bridge shows the line it would run (it can be asked now): that is what is tested.
  await popup.getByTestId('command-preview').locator('[data-expanded="true"]').waitFor();
  await popup.getByTestId('test-connection').click();
  const connected = popup.locator('[data-state="connected"]');
  await connected.waitFor({ timeout: 30_000 });
  assert.match(await connected.innerText(), /list_directory/);
  await screenshot(popup, 'native-messaging-connected');
});
