// The composer's `/` menu: panel commands and server-everything's prompts, driven by keyboard
// only; a prompt with arguments filled in above the input, its result put in the input for
// the person to edit and send (and reaching the Gemini fake as the person's text).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openChat } from './chat_page.mjs';
import { startStateless2026 } from './servers.mjs';
import { textChunks } from '../fixtures/fake-gemini/server.mjs';

let chat;
let page;

before(async () => {
  chat = await openChat();
  ({ page } = chat);
  await chat.addEverything();
  await chat.reload();
});
after(async () => {
  await chat?.close();
});

const input = () => page.getByTestId('input');
const menu = () => page.getByTestId('slash-menu');
const items = () => page.getByTestId('slash-item');
const names = async () => (await page.locator('.slash-item .slash-name').allInnerTexts());

test('a slash lists the panel commands and every enabled server\'s prompts, filtered as typed', async () => {
  await input().focus();
  await page.keyboard.type('/');
  await menu().waitFor();
  await page.locator('.slash-name', { hasText: '/args-prompt' }).waitFor();
  const all = await names();
  for (const name of ['/new', '/simple-prompt', '/args-prompt', '/completable-prompt']) {
    assert.ok(all.includes(name), `${name} in ${all}`);
  }
  assert.equal(await input().getAttribute('aria-expanded'), 'true');
  await chat.shoot('slash-menu');

  await page.keyboard.type('pro');
  // Names containing the text, in the servers' order; the first is highlighted.
  assert.ok((await names()).every((n) => n.includes('pro')), String(await names()));
  await page.keyboard.press('ArrowDown');
  assert.equal(await items().nth(1).getAttribute('aria-selected'), 'true');
  await page.keyboard.press('ArrowUp');
  assert.equal(await items().nth(0).getAttribute('aria-selected'), 'true');

  // Escape closes the menu and leaves the text.
  await page.keyboard.press('Escape');
  await menu().waitFor({ state: 'detached' });
  assert.equal(await input().inputValue(), '/pro');
  await input().fill('');
});

test('Tab completes a name, Enter gets a prompt without arguments into the input', async () => {
  await input().focus();
  await page.keyboard.type('/simp');
  await page.locator('.slash-name', { hasText: '/simple-prompt' }).waitFor();
  await page.keyboard.press('Tab');
  assert.equal(await input().inputValue(), '/simple-prompt');
  assert.deepEqual(await names(), ['/simple-prompt']);
  await page.keyboard.press('Enter');
  await page.waitForFunction(() =>
    document.querySelector('[data-testid="input"]').value === 'This is a simple prompt without arguments.');
  await menu().waitFor({ state: 'detached' });
  await input().fill('');
});

test('a prompt\'s arguments are asked for, a required one checked, and the result sent as the person\'s text', async () => {
  await input().focus();
  await page.keyboard.type('/args');
  await page.locator('.slash-name', { hasText: '/args-prompt' }).waitFor();
  await page.keyboard.press('Enter');
  const form = page.getByTestId('prompt-arguments');
  await form.waitFor();
  // The first field has the focus; Enter with the required city empty says so.
  const city = page.locator('[data-testid="prompt-argument"][data-name="city"]');
  assert.ok(await city.evaluate((el) => el === document.activeElement), 'city focused');
  await page.keyboard.press('Enter');
  await form.getByRole('alert').waitFor();
  assert.equal(await city.getAttribute('aria-invalid'), 'true');
  await chat.shoot('slash-arguments');
  await page.keyboard.type('Kyoto');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() =>
    document.querySelector('[data-testid="input"]').value === "What's weather in Kyoto?");
  await form.waitFor({ state: 'detached' });
  assert.ok(await input().evaluate((el) => el === document.activeElement), 'back in the input');
  await chat.shoot('slash-filled');

  // The person edits it and sends it.
  await page.keyboard.type(' And tomorrow?');
  chat.fake.reset();
  chat.fake.script([{ chunks: textChunks('It will be sunny.') }]);
  await page.keyboard.press('Enter');
  await page.getByTestId('reply').last().waitFor();
  const sent = chat.chatRequests().at(-1);
  const turn = sent.body.contents.at(-1);
  assert.equal(turn.role, 'user');
  const text = turn.parts.map((p) => p.text ?? '').join('');
  assert.ok(text.includes("What's weather in Kyoto? And tomorrow?"), text);
});

test('a field offers the server\'s completions, narrowed by the fields already filled', async () => {
  await input().focus();
  await page.keyboard.type('/completable');
  await page.locator('.slash-name', { hasText: '/completable-prompt' }).waitFor();
  await page.keyboard.press('Enter');
  await page.getByTestId('prompt-arguments').waitFor();
  const options = (n) => page.locator(`#prompt-arg-${n}-values option`);
  const values = async (n) => options(n).evaluateAll((os) => os.map((o) => o.value));
  // The focused first field asks at once, then as the person types.
  await page.waitForFunction(() => document.querySelectorAll('#prompt-arg-0-values option').length === 4);
  assert.deepEqual(await values(0), ['Engineering', 'Sales', 'Marketing', 'Support']);
  await page.keyboard.type('S');
  await page.waitForFunction(() => document.querySelectorAll('#prompt-arg-0-values option').length === 2);
  assert.deepEqual(await values(0), ['Sales', 'Support']);
  await page.keyboard.type('ales');
  await page.keyboard.press('Tab');
  // The second field's values depend on the first (`context.arguments`).
  await page.waitForFunction(() => document.querySelectorAll('#prompt-arg-1-values option').length === 3);
  assert.deepEqual(await values(1), ['David', 'Eve', 'Frank']);
  await page.keyboard.type('Eve');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() =>
    document.querySelector('[data-testid="input"]').value === 'Please promote Eve to the head of the Sales team.');
  await input().fill('');
});

test('a slash that matches nothing is sent as a message', async () => {
  await input().focus();
  await page.keyboard.type('/zzz');
  await page.locator('.slash-empty').waitFor();
  const before = chat.chatRequests().length;
  chat.fake.script([{ chunks: textChunks('Noted.') }]);
  await page.keyboard.press('Enter');
  await menu().waitFor({ state: 'detached' });
  await page.waitForFunction((n) => document.querySelectorAll('[data-testid="reply"]').length >= n, 2);
  assert.equal(await input().inputValue(), '');
  const sent = chat.chatRequests().slice(before).at(-1);
  const text = sent.body.contents.at(-1).parts.map((p) => p.text ?? '').join('');
  assert.ok(text.includes('/zzz'), text);
});

test('/new starts a new chat', async () => {
  assert.ok(await page.getByTestId('reply').count() > 0, 'a chat to leave');
  await input().focus();
  await page.keyboard.type('/new');
  await page.locator('.slash-name', { hasText: '/new' }).first().waitFor();
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="reply"]').length === 0);
  assert.equal(await input().inputValue(), '');
});

test('the menu and the argument form speak Japanese', async () => {
  const ja = await openChat({ locale: 'ja' });
  try {
    await ja.addEverything();
    await ja.reload();
    const p = ja.page;
    await p.getByTestId('input').focus();
    await p.keyboard.type('/');
    assert.equal(await p.getByTestId('slash-menu').getAttribute('aria-label'), 'コマンドとプロンプト');
    await p.locator('.slash-name', { hasText: '/args-prompt' }).waitFor();
    assert.ok((await p.locator('.slash-item').first().innerText()).includes('新しいチャットを始める'));
    await ja.shoot('slash-menu-ja');
    await p.keyboard.type('args');
    await p.keyboard.press('Enter');
    await p.getByTestId('prompt-arguments').waitFor();
    await p.keyboard.press('Enter');
    assert.equal(await p.getByTestId('prompt-arguments').getByRole('alert').innerText(), '「city」は必須です。');
    await ja.shoot('slash-arguments-ja');
  } finally {
    await ja.close();
  }
});

test('a server\'s announcement that its prompts changed updates the open menu', async () => {
  const stateless = await startStateless2026();
  try {
    const id = `srv_${Math.random().toString(16).slice(2, 10)}`;
    const added = await chat.request({
      type: 'edit_settings',
      edit: { type: 'add_server', id, server: { name: 'Stateless', url: stateless.url } },
    });
    assert.equal(added.type, 'settings', JSON.stringify(added));
    await chat.reload();
    await input().focus();
    await page.keyboard.type('/');
    await page.locator('.slash-name', { hasText: '/travel' }).waitFor();
    // The worker listens (subscriptions/listen) while the panel is open.
    const deadline = Date.now() + 10_000;
    while ((await stateless.openListens()) < 1) {
      assert.ok(Date.now() < deadline, 'a subscriptions/listen stream opened');
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.ok(!(await names()).includes('/arrived_prompt'));
    await stateless.addPrompt('arrived_prompt');
    // Nothing typed: the menu lists the prompts again by itself.
    await page.locator('.slash-name', { hasText: '/arrived_prompt' }).waitFor({ timeout: 10_000 });
    assert.equal(await input().inputValue(), '/');
    await page.keyboard.press('Escape');
    await input().fill('');
    await chat.removeServer(id);
  } finally {
    await stateless.stop();
  }
});
