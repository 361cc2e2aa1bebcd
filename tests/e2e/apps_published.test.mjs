// The MCP Apps project's own example servers, as published on npm: each app renders in the
// side panel, receives its tool's result, and answers the person's clicks.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openChat } from './chat_page.mjs';
import { startPublishedApp } from './servers.mjs';

let chat;
const servers = {};

before(async () => {
  chat = await openChat();
  for (const name of ['basic-react', 'cohort-heatmap', 'scenario-modeler', 'threejs']) {
    servers[name] = await startPublishedApp(name);
    const id = `srv_${name.replace(/[^a-z]/g, '').padEnd(16, 'x').slice(0, 16)}`;
    const added = await chat.request({
      type: 'edit_settings',
      edit: { type: 'add_server', id, server: { name, url: servers[name].url } },
    });
    assert.equal(added.type, 'settings', JSON.stringify(added));
    await chat.request({ type: 'edit_settings', edit: { type: 'set_trust', id, trust: true } });
  }
  await chat.reload();
});
after(async () => {
  await chat?.close();
  for (const server of Object.values(servers)) await server.stop();
});

/** Runs `tool` of `server` from the tool browser; the app's frame, once it is ready. */
async function runApp(server, tool) {
  const page = chat.page;
  await chat.reload();
  await page.getByTestId('tools').click();
  const browser = page.getByTestId('tool-browser');
  await browser.locator(`[data-server="${server}"] summary`).click();
  await browser.locator(`[data-tool="${tool}"]`).click();
  await page.getByTestId('tool-run').click();
  await page.getByTestId('tool-card').first().and(page.locator('[data-state="done"]')).waitFor({ timeout: 30_000 });
  await page.getByTestId('app-frame').and(page.locator('[data-state="ready"]')).waitFor({ timeout: 30_000 });
  return page.frameLocator('[data-testid="app-iframe"]').last().frameLocator('iframe');
}

test('basic-react: the server time from its result, fetched again on a click; its message goes to the composer', async () => {
  const page = chat.page;
  const app = await runApp('basic-react', 'get-time');
  const time = app.locator('code');
  const first = await time.innerText();
  assert.match(first, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d/, 'the time came from the tool result');
  await chat.shoot('published-basic-react');
  await app.getByRole('button', { name: 'Get Server Time' }).click();
  await time.filter({ hasNotText: first }).waitFor({ timeout: 10_000 });
  await app.locator('textarea').fill('Hello from the React app');
  await app.getByRole('button', { name: 'Send Message' }).click();
  await page.waitForFunction(() => document.querySelector('[data-testid="input"]')?.value === 'Hello from the React app');
  await page.getByTestId('input').fill('');
});

test('cohort-heatmap: a heatmap of its data; switching the metric asks its server again', async () => {
  const app = await runApp('cohort-heatmap', 'get-cohort-data');
  await app.getByRole('heading', { name: 'Cohort Retention Analysis' }).waitFor();
  const header = app.locator('[class*="headerPeriod"]').first();
  assert.equal(await header.innerText(), 'M0');
  assert.ok(await app.locator('[class*="_cell_"]').count() > 20, 'cells drawn from the result');
  await chat.shoot('published-cohort-heatmap');
  // Its server makes up new data for every call: the grid changes once the app asked again.
  const grid = app.locator('[class*="heatmapGrid"]');
  const before = await grid.innerText();
  await app.locator('select').first().selectOption('active');
  await grid.filter({ hasNotText: before }).waitFor({ timeout: 10_000 });
});

test('scenario-modeler: a projection from its data; a template to compare against and a slider answer', async () => {
  const app = await runApp('scenario-modeler', 'get-scenario-data');
  await app.getByRole('heading', { name: 'SaaS Scenario Modeler' }).waitFor();
  const endMrr = app.locator('.metric-value').first();
  const before = await endMrr.innerText();
  assert.match(before, /^\$[\d.]+K$/);
  await app.locator('select.template-select').selectOption('vc-rocketship');
  await app.locator('.metrics-column h3').nth(1).waitFor({ timeout: 10_000 });
  await app.locator('input.slider-input').first().fill('200000');
  await endMrr.filter({ hasNotText: before }).waitFor({ timeout: 10_000 });
  await chat.shoot('published-scenario-modeler');
});

test('threejs: the scene it was given runs (eval inside the frame), and its fullscreen button is obeyed', async () => {
  const page = chat.page;
  const app = await runApp('threejs', 'show_threejs_scene');
  // The form held the schema's defaults, so the tool ran with them.
  assert.equal(await page.locator('[data-field="height"] input').inputValue(), '400');
  const canvas = app.locator('canvas#threejs-canvas');
  await canvas.waitFor({ timeout: 20_000 });
  assert.match(await canvas.getAttribute('data-engine'), /three\.js/);
  assert.equal(await app.getByText(/Error|violates/).count(), 0, await app.locator('body').innerText());
  await chat.shoot('published-threejs');
  await app.locator('button.fullscreen-btn').click();
  await page.getByTestId('app-frame').and(page.locator('[data-mode="fullscreen"]')).waitFor({ timeout: 10_000 });
  await page.keyboard.press('Escape');
  await page.getByTestId('app-frame').and(page.locator('[data-mode="inline"]')).waitFor({ timeout: 10_000 });
});

test('in Japanese: the tool browser and an app, in both themes', async () => {
  const japanese = await openChat({ locale: 'ja' });
  try {
    const id = 'srv_basicreactjaxxxx';
    await japanese.request({ type: 'edit_settings', edit: { type: 'add_server', id, server: { name: 'basic-react', url: servers['basic-react'].url } } });
    await japanese.reload();
    const page = japanese.page;
    await page.getByTestId('tools').click();
    const browser = page.getByTestId('tool-browser');
    assert.equal(await browser.locator('h2').innerText(), 'ツール');
    await browser.locator('[data-server="basic-react"] summary').click();
    await browser.locator('[data-tool="get-time"]').click();
    await page.getByTestId('tool-run').click();
    await page.getByTestId('app-frame').and(page.locator('[data-state="ready"]')).waitFor({ timeout: 30_000 });
    const app = page.frameLocator('[data-testid="app-iframe"]').last().frameLocator('iframe');
    await app.locator('code').waitFor();
    assert.match(await page.getByTestId('tool-run').innerText(), /実行/);
    await japanese.shoot('published-basic-react-ja');
  } finally {
    await japanese.close();
  }
});
