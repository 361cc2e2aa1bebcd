// The demo MCP server of `cargo xtask run` in the side panel, as a newcomer meets it without a
// Gemini key: the tool browser runs `pick_colour`, its app (the official App class) starts from
// the tool's input, saves a pick through its app-only tool and hands it to the composer.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openChat } from './chat_page.mjs';
import { startDemo } from './servers.mjs';

let chat;
let demo;

before(async () => {
  demo = await startDemo();
  chat = await openChat();
  const added = await chat.request({
    type: 'edit_settings',
    edit: { type: 'add_server', id: 'srv_demo', server: { name: 'Demo', url: demo.url } },
  });
  assert.equal(added.type, 'settings', JSON.stringify(added));
  await chat.reload();
});
after(async () => {
  await chat?.close();
  await demo?.stop();
});

test('the demo\'s colour picker runs from the tool browser, saves a pick and offers it to the chat', async () => {
  const page = chat.page;
  await page.getByTestId('tools').click();
  const browser = page.getByTestId('tool-browser');
  await browser.locator('[data-server="Demo"] summary').click();
  assert.match(await browser.locator('[data-tool="set_colour"]').innerText(), /for its app only/);
  await browser.locator('[data-tool="pick_colour"]').click();
  await page.locator('[data-field="colour"] input').fill('teal');
  await page.getByTestId('tool-run').click();
  await page.getByTestId('app-frame').and(page.locator('[data-state="ready"]')).waitFor({ timeout: 30_000 });
  const app = page.frameLocator('[data-testid="app-iframe"]').last().frameLocator('iframe');
  await app.locator('body[data-ready="true"]').waitFor({ timeout: 20_000 });
  await app.locator('#value').filter({ hasText: '#008080' }).waitFor({ timeout: 10_000 });
  await chat.shoot('demo-app');

  await app.getByRole('button', { name: '#ef4444' }).click();
  await app.getByRole('button', { name: 'Use this colour' }).click();
  // set_colour writes and the demo server is not trusted: the app's call asks first, in its
  // card, naming the app (issue 22, item 1).
  const ask = page.getByTestId('app-call-ask');
  await ask.waitFor({ timeout: 10_000 });
  assert.match(await ask.innerText(), /set_colour/);
  await ask.getByRole('button', { name: 'Allow once' }).click();
  await app.getByRole('status').filter({ hasText: 'Saved #ef4444.' }).waitFor({ timeout: 10_000 });
  await app.getByRole('button', { name: 'Tell Gemini' }).click();
  await page.waitForFunction(() => document.querySelector('[data-testid="input"]')?.value.startsWith('I picked #ef4444.'));
  await page.getByTestId('input').fill('');
});
