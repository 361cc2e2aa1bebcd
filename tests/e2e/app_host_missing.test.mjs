// An app the side panel cannot show, because the app host module does not load (a damaged
// install): the app's place says so, with the reason, instead of staying empty.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dist, launch, screenshot } from './harness.mjs';
import { startAppsSmoke } from '../fixtures/apps-smoke/server.mjs';

test('an app whose host module cannot load shows an error card with the reason', async (t) => {
  const damaged = mkdtempSync(join(tmpdir(), 'gemipanel-damaged-'));
  cpSync(dist, damaged, { recursive: true });
  rmSync(join(damaged, 'wasm', 'apphost_bg.wasm'));
  const apps = await startAppsSmoke();
  const browser = await launch({ extension: damaged });
  t.after(async () => {
    await browser.close();
    await apps.stop();
    rmSync(damaged, { recursive: true, force: true });
  });
  const page = await browser.context.newPage();
  await page.goto(browser.url('sidepanel.html'));
  const id = `srv_${'d'.repeat(16)}`;
  for (const edit of [{ type: 'add_server', id, server: { name: 'Apps', url: apps.url } }, { type: 'set_trust', id, trust: true }]) {
    const reply = await page.evaluate((request) => chrome.runtime.sendMessage({ id: 1, request }), { type: 'edit_settings', edit });
    assert.equal(reply?.response?.type, 'settings', JSON.stringify(reply));
  }
  await page.reload();
  await page.getByTestId('worker-status').and(page.locator('[data-state="ok"]')).waitFor();
  await page.getByTestId('tools').click();
  await page.getByTestId('tool-browser').locator('[data-server="Apps"] summary').click();
  await page.locator('[data-tool="show_counter"]').click();
  await page.getByTestId('tool-run').click();
  const error = page.getByTestId('app-error');
  await error.waitFor({ timeout: 20_000 });
  assert.match(await error.innerText(), /^The app could not be shown: \S/);
  await screenshot(page, 'app-host-missing');
});
