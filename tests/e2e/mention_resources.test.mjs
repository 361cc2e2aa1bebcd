// The composer's `@` menu: the resources and resource templates of server-everything and of the
// project's demo server, driven by keyboard only; a template's variable filled with the
// server's completions; the resource attached as a chip and sent to the Gemini fake as a
// context part (text as text, a PNG as inline data).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openChat } from './chat_page.mjs';
import { startDemo } from './servers.mjs';
import { textChunks } from '../fixtures/fake-gemini/server.mjs';

let chat;
let page;
let demo;

async function addDemo(on) {
  const id = `srv_${Math.random().toString(16).slice(2, 10)}`;
  const added = await on.request({
    type: 'edit_settings',
    edit: { type: 'add_server', id, server: { name: 'demo', url: demo.url } },
  });
  assert.equal(added.type, 'settings', JSON.stringify(added));
}

before(async () => {
  demo = await startDemo();
  chat = await openChat();
  ({ page } = chat);
  await chat.addEverything();
  await addDemo(chat);
  await chat.reload();
});
after(async () => {
  await chat?.close();
  await demo?.stop();
});

const input = () => page.getByTestId('input');
const menu = () => page.getByTestId('mention-menu');
const items = () => page.getByTestId('mention-item');
const names = async () => (await page.locator('[data-testid="mention-item"] .slash-name').allInnerTexts())
  .map((n) => n.replace(/^\W+/u, '').trim());
const chips = () => page.locator('[data-testid="attachment"][data-kind="resource"]');

/** Moves the highlight to the row whose text contains `text`. */
async function highlight(text) {
  const rows = await items().allInnerTexts();
  const at = rows.findIndex((r) => r.includes(text));
  assert.ok(at >= 0, `${text} in ${rows}`);
  for (let n = 0; n < at; n += 1) await page.keyboard.press('ArrowDown');
  assert.equal(await items().nth(at).getAttribute('aria-selected'), 'true');
}

const sentTurn = () => chat.chatRequests().at(-1).body.contents.at(-1);

/** Enter sends; resolves once the fake's reply is shown. */
async function send(reply) {
  const before = await page.getByTestId('reply').count();
  chat.fake.reset();
  chat.fake.script([{ chunks: textChunks(reply) }]);
  await page.keyboard.press('Enter');
  await page.waitForFunction((n) => document.querySelectorAll('[data-testid="reply"]').length > n, before);
}

test('an @ lists every enabled server\'s resources and templates, filtered as typed', async () => {
  await input().focus();
  await page.keyboard.type('Read @');
  await menu().waitFor();
  await page.locator('[data-testid="mention-item"]', { hasText: 'architecture.md' }).waitFor();
  await page.locator('[data-testid="mention-item"]', { hasText: 'Colour swatch' }).waitFor();
  const rows = await items().allInnerTexts();
  assert.ok(rows.some((r) => r.includes('Dynamic Text Resource') && r.includes('everything')), String(rows));
  // The demo's app page (ui://, the MCP App MIME type) is the app's code, not offered to attach.
  assert.ok(!rows.some((r) => r.includes('colour-picker')), String(rows));
  assert.equal(await input().getAttribute('aria-expanded'), 'true');
  assert.equal(await input().getAttribute('aria-controls'), 'mention-menu');
  // The size cap is said before anything is attached (once no page is on its way).
  await page.getByTestId('mention-footer').filter({ hasText: '100,000' }).waitFor();
  assert.match(await page.getByTestId('mention-footer').innerText(), /100,000 characters.*8 MB/);
  await chat.shoot('mention-menu');

  await page.keyboard.type('md');
  await page.waitForFunction(() => [...document.querySelectorAll('[data-testid="mention-item"]')]
    .every((row) => row.innerText.includes('md')));
  assert.ok((await names()).includes('architecture.md'), String(await names()));
  await page.keyboard.press('ArrowDown');
  assert.equal(await items().nth(1).getAttribute('aria-selected'), 'true');
  await page.keyboard.press('ArrowUp');
  assert.equal(await items().nth(0).getAttribute('aria-selected'), 'true');

  // Tab completes the name and keeps the rest of the text.
  await page.keyboard.press('Tab');
  assert.equal(await input().inputValue(), `Read @${(await names())[0]}`);
  // Escape closes the menu and leaves the text; an address is no mention.
  await page.keyboard.press('Escape');
  await menu().waitFor({ state: 'detached' });
  await input().fill('');
  await page.keyboard.type('mail me@exa');
  assert.equal(await menu().count(), 0);
  await input().fill('');
});

test('a resource picked with Enter becomes a chip and reaches the model as quoted text', async () => {
  await input().focus();
  await page.keyboard.type('Summarize @architecture');
  await page.locator('[data-testid="mention-item"]', { hasText: 'architecture.md' }).waitFor();
  await highlight('architecture.md');
  await page.keyboard.press('Enter');
  await menu().waitFor({ state: 'detached' });
  await chips().first().waitFor();
  assert.equal(await input().inputValue(), 'Summarize ');
  assert.match(await chips().first().innerText(), /Resource: architecture\.md/);

  await send('It is about the server.');
  const turn = sentTurn();
  const texts = turn.parts.map((p) => p.text ?? '');
  const quoted = texts.find((t) => t.startsWith('[Resource attached by the person'));
  assert.ok(quoted, JSON.stringify(texts));
  assert.match(quoted, /URL: demo:\/\/resource\/static\/document\/architecture\.md/);
  assert.match(quoted, /Note: From the MCP server “everything”\./);
  assert.ok(texts.some((t) => t.includes('Summarize')), JSON.stringify(texts));
  await chips().first().waitFor({ state: 'detached' });
});

test('a template\'s variable is completed by the server and the resource it makes is attached', async () => {
  await input().focus();
  await page.keyboard.type('@dynamic');
  await page.locator('[data-testid="mention-item"]', { hasText: 'Dynamic Text Resource' }).waitFor();
  await highlight('Dynamic Text Resource');
  await page.keyboard.press('Enter');
  const form = page.getByTestId('prompt-arguments');
  await form.waitFor();
  assert.equal(await form.locator('h3').innerText(), '@Dynamic Text Resource');
  const field = page.locator('[data-testid="prompt-argument"][data-name="resourceId"]');
  assert.ok(await field.evaluate((el) => el === document.activeElement), 'the variable focused');
  // server-everything completes a positive integer with itself, and nothing else.
  await page.keyboard.type('7');
  await page.waitForFunction(() => [...document.querySelectorAll('#prompt-arg-0-values option')]
    .map((o) => o.value).join() === '7');
  await page.keyboard.press('Enter');
  await form.waitFor({ state: 'detached' });
  await chips().first().waitFor();
  assert.match(await chips().first().innerText(), /Dynamic Text Resource \(7\)/);

  await page.keyboard.type('What is it?');
  await send('Resource seven.');
  const quoted = sentTurn().parts.map((p) => p.text ?? '').find((t) => t.startsWith('[Resource attached'));
  assert.match(quoted, /URL: demo:\/\/resource\/dynamic\/text\/7/);
  assert.match(quoted, /Resource 7: This is a plaintext resource created at/);
});

test('an image made from the demo\'s template reaches the model as inline data', async () => {
  await input().focus();
  await page.keyboard.type('@swat');
  await page.locator('[data-testid="mention-item"]', { hasText: 'Colour swatch' }).waitFor();
  await highlight('Colour swatch');
  await page.keyboard.press('Enter');
  const form = page.getByTestId('prompt-arguments');
  await form.waitFor();
  const values = () => page.locator('#prompt-arg-0-values option').evaluateAll((os) => os.map((o) => o.value));
  await page.waitForFunction(() => document.querySelectorAll('#prompt-arg-0-values option').length === 10);
  await page.keyboard.type('g');
  await page.waitForFunction(() => document.querySelectorAll('#prompt-arg-0-values option').length === 3);
  assert.deepEqual(await values(), ['gold', 'green', 'grey']);
  await page.keyboard.press('Backspace');
  await page.keyboard.type('teal');
  await chat.shoot('mention-template');
  await page.keyboard.press('Enter');
  await chips().first().waitFor();
  assert.match(await chips().first().innerText(), /Colour swatch \(teal\)/);
  await page.keyboard.type('Which colour?');
  await chat.shoot('mention-chip');

  await send('Teal.');
  const parts = sentTurn().parts;
  const at = parts.findIndex((p) => p.text?.startsWith('[Resource attached'));
  assert.ok(at >= 0, JSON.stringify(parts).slice(0, 2000));
  assert.match(parts[at].text, /URL: gemipanel-demo:\/\/swatch\/teal/);
  const media = parts[at + 1].inlineData;
  assert.equal(media?.mimeType, 'image/png', JSON.stringify(parts[at + 1]).slice(0, 300));
  assert.ok(Buffer.from(media.data, 'base64').subarray(1, 4).toString() === 'PNG', 'a PNG');
  await chat.shoot('mention-sent');
});

test('the menu, the variable form and the chip speak Japanese', async () => {
  const ja = await openChat({ locale: 'ja' });
  try {
    await addDemo(ja);
    await ja.reload();
    const p = ja.page;
    await p.getByTestId('input').focus();
    await p.keyboard.type('@');
    assert.equal(await p.getByTestId('mention-menu').getAttribute('aria-label'), 'リソース');
    await p.locator('[data-testid="mention-item"]', { hasText: 'Colour swatch' }).waitFor();
    await p.getByTestId('mention-footer').filter({ hasText: '次のメッセージに添付されます' }).waitFor();
    assert.ok((await p.locator('[data-testid="mention-item"]', { hasText: 'Colour swatch' }).innerText()).includes('テンプレート'));
    await ja.shoot('mention-menu-ja');
    await p.keyboard.type('swatch');
    await p.keyboard.press('Enter');
    await p.getByTestId('prompt-arguments').waitFor();
    await p.keyboard.press('Enter');
    assert.equal(await p.getByTestId('prompt-arguments').getByRole('alert').innerText(), '「colour」は必須です。');
    await p.keyboard.type('navy');
    await p.keyboard.press('Enter');
    const chip = p.locator('[data-testid="attachment"][data-kind="resource"]');
    await chip.waitFor();
    assert.match(await chip.innerText(), /リソース: Colour swatch \(navy\)/);
    await ja.shoot('mention-chip-ja');
  } finally {
    await ja.close();
  }
});
