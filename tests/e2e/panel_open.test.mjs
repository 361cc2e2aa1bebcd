// How the side panel opens after the worker went to sleep (issue 24): the page asks the worker
// before its module runs (static/early.js), and what a person sees on the way is kept as a
// series of screenshots at 50, 100 and 200 ms after navigation.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch, screenshot, stopServiceWorkers } from './harness.mjs';

let browser;
let page;

before(async () => {
  browser = await launch();
  page = await browser.context.newPage();
  await page.goto(browser.url('sidepanel.html'));
  await page.getByTestId('worker-status').and(page.locator('[data-state="ok"]')).waitFor();
});
after(async () => browser?.close());

/** Opens the panel afresh with the worker stopped, as after Chrome put it to sleep. */
async function openAsleep() {
  await page.goto('about:blank');
  await stopServiceWorkers(page);
  await page.goto(browser.url('sidepanel.html'), { waitUntil: 'commit' });
}

test('the panel asks the worker before its module runs, and shows the answer it got', async () => {
  await openAsleep();
  await page.getByTestId('worker-status').and(page.locator('[data-state="ok"]')).waitFor();
  // early.js's answers were taken (each once) and the panel shows the status they carried.
  const left = await page.evaluate(() => Object.keys(globalThis.gemipanelEarly ?? {}));
  assert.deepEqual(left, ['module'], 'status and settings were taken from the early requests');
  assert.match(await page.getByTestId('worker-status').innerText(), /worker up \d+ s · \d+ MCP server/);
  // A refresh still asks over the port.
  await page.getByTestId('worker-status').getByRole('button').click();
  await page.getByTestId('worker-status').and(page.locator('[data-state="ok"]')).waitFor();
});

test('screenshots of the panel 50, 100 and 200 ms after navigation', async () => {
  for (const ms of [50, 100, 200]) {
    await openAsleep();
    await page.waitForTimeout(ms);
    await screenshot(page, `panel-open-${ms}ms`);
  }
  await page.getByTestId('worker-status').and(page.locator('[data-state="ok"]')).waitFor();
  await screenshot(page, 'panel-open-ready');
});
