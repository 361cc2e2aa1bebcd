// The Chrome Web Store package (`cargo xtask dist --store`, target/store/gemipanel-<version>.zip)
// as the store gets it: unzipped and loaded into Chromium like an installed extension. It has
// no development `key`, so Chromium gives it an id of its own; the worker starts and answers,
// and the popup and the side panel come up.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { launch, extensionId, screenshot, dist } from './harness.mjs';

const root = resolve(import.meta.dirname, '../..');
const target = process.env.CARGO_TARGET_DIR ?? join(root, 'target');
/** `version` of `[workspace.package]`, which the package's manifest must carry. */
const version = readFileSync(join(root, 'Cargo.toml'), 'utf8').match(/\[workspace\.package\][^[]*?\nversion\s*=\s*"([^"]+)"/)[1];
const zip = join(target, 'store', `gemipanel-${version}.zip`);

let unpacked;
let browser;

before(async () => {
  assert.ok(existsSync(zip), `${zip} is missing: cargo xtask store (or dist --store) makes it`);
  unpacked = mkdtempSync(join(tmpdir(), 'gemipanel-store-'));
  // Python's zipfile reads what the store reads: a plain zip.
  execFileSync('python3', ['-m', 'zipfile', '-e', zip, unpacked]);
  // As built: `nativeMessaging` stays optional, as for a person installing from the store.
  browser = await launch({ extension: unpacked, anyId: true, nativeMessaging: false });
});
after(async () => {
  await browser?.close();
  if (unpacked) rmSync(unpacked, { recursive: true, force: true });
});

test('the package has the workspace version, no development key, and only what the extension loads', () => {
  const manifest = JSON.parse(readFileSync(join(unpacked, 'manifest.json'), 'utf8'));
  assert.equal(manifest.version, version);
  assert.equal(manifest.key, undefined, 'the store refuses a manifest with a key');
  assert.ok(!manifest.permissions.includes('nativeMessaging'), 'nativeMessaging is optional');
  assert.ok(manifest.optional_permissions.includes('nativeMessaging'));
  const listed = execFileSync('python3', ['-m', 'zipfile', '-l', zip]).toString();
  const names = listed.split('\n').slice(1).map((l) => l.trim().split(/\s+/)[0]).filter(Boolean);
  const built = execFileSync('find', ['.', '-type', 'f'], { cwd: dist }).toString().trim().split('\n').map((f) => f.slice(2));
  // Everything in it was built; the wasm of every page and the worker is in it.
  for (const name of names) assert.ok(built.includes(name), `${name} is not a built file`);
  for (const needed of ['background.js', 'wasm/background_bg.wasm', 'wasm/sidepanel_bg.wasm', 'wasm/popup_bg.wasm',
    'wasm/apphost_bg.wasm', 'sandbox.html', 'vendor/readability/Readability.js', '_locales/ja/messages.json', 'icons/icon128.png']) {
    assert.ok(names.includes(needed), `${needed} is missing from the package`);
  }
  assert.ok(!names.some((n) => n.endsWith('.map') || n.includes('node_modules')), names.join(' '));
});

test('loaded into Chromium, the store build gets an id of its own, its worker answers and its pages come up', async () => {
  assert.notEqual(browser.id, extensionId, 'without the key Chromium names it after its folder');
  const popup = await browser.context.newPage();
  const errors = [];
  popup.on('pageerror', (e) => errors.push(e.message));
  await popup.goto(browser.url('popup.html'));
  await popup.getByTestId('worker-status').and(popup.locator('[data-state="ok"]')).waitFor();
  assert.match(await popup.getByTestId('worker-status').innerText(), new RegExp(`v${version.replace(/\./g, '\\.')}`));
  const panel = await browser.context.newPage();
  panel.on('pageerror', (e) => errors.push(e.message));
  await panel.goto(browser.url('sidepanel.html'));
  await panel.getByTestId('worker-status').and(panel.locator('[data-state="ok"]')).waitFor();
  await panel.getByTestId('input').waitFor();
  await screenshot(panel, 'store-package-panel');
  assert.deepEqual(errors, []);
});
