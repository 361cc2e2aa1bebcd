// A page's own tools (WebMCP) from the chat, in Chromium run with --enable-features=WebMCP:
// the tools menu lists what the page beside the chat registered (by script and by a form),
// the model sees them as page_{host}_{tool}, a call asks first (a page starts untrusted) and
// runs in the page, and they go when the tab navigates away. Without the feature, the menu
// says how to turn it on.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openChat } from './chat_page.mjs';
import { screenshot } from './harness.mjs';
import { startPages } from '../fixtures/pages/server.mjs';
import { textChunks, functionCallChunk } from '../fixtures/fake-gemini/server.mjs';

let chat;
let pages;
let tab;

before(async () => {
  pages = await startPages();
  chat = await openChat({ webmcp: true });
  tab = await chat.browser.context.newPage();
  await tab.goto(pages.url('/webmcp'));
  await tab.bringToFront();
  await chat.reload();
});
after(async () => {
  await chat?.close();
  await pages?.close();
});

const panel = () => chat.page;
const declared = (req) => (req.body.tools ?? []).flatMap((t) => t.functionDeclarations ?? []);
const responses = (req) => req.body.contents.at(-1).parts.filter((p) => p.functionResponse).map((p) => p.functionResponse);

/** Both themes of the panel, brought to the front for it (a tab behind may not paint). */
async function shoot(name) {
  await panel().bringToFront();
  for (const scheme of ['light', 'dark']) {
    await panel().emulateMedia({ colorScheme: scheme });
    await screenshot(panel(), `page-tools-${name}-${scheme}`);
  }
  await panel().emulateMedia({ colorScheme: 'light' });
  await tab.bringToFront();
}

test("the page's tools are listed, declared by page name, confirmed, and run in the page", async () => {
  const menu = panel().getByTestId('tools-menu');
  await menu.locator('summary').click();
  const listed = panel().getByTestId('page-tools');
  await listed.locator('[data-tool="order_tea"]').waitFor();
  const names = await listed.locator('[data-tool]').evaluateAll((els) => els.map((e) => e.dataset.tool).sort());
  assert.deepEqual(names, ['add_to_cart', 'list_teas', 'order_tea']);
  await shoot('menu');
  await menu.locator('summary').click();

  chat.fake.script([
    { chunks: [functionCallChunk([{ name: 'page_127_0_0_1_add_to_cart', args: { tea: 'sencha', bags: 2 } }])] },
    { chunks: [functionCallChunk([{ name: 'page_127_0_0_1_order_tea', args: { tea: 'gyokuro', quantity: 3 } }])] },
    { chunks: textChunks('Added and ordered.') },
  ]);
  await chat.send('Put sencha in the cart and order gyokuro.');
  const card = panel().getByTestId('tool-card').last();
  await card.and(panel().locator('[data-state="confirm"]')).waitFor();
  const first = chat.chatRequests()[0];
  const tools = declared(first);
  const own = tools.filter((d) => d.name.startsWith('page_')).map((d) => d.name).sort();
  assert.deepEqual(own, ['page_127_0_0_1_add_to_cart', 'page_127_0_0_1_list_teas', 'page_127_0_0_1_order_tea']);
  const add = tools.find((d) => d.name === 'page_127_0_0_1_add_to_cart');
  assert.match(add.description, new RegExp(`^A tool of the web page ${pages.origin}, run in that page`));
  assert.equal(await card.locator('.server').innerText(), '127.0.0.1');
  assert.equal(pages.calls().length, 0, 'nothing ran before the person allowed it');
  await shoot('confirm');
  await card.getByRole('button', { name: 'Allow once' }).click();
  await panel().getByTestId('tool-card').nth(1).and(panel().locator('[data-state="confirm"]')).waitFor();
  await panel().getByTestId('tool-card').nth(1).getByRole('button', { name: 'Allow once' }).click();
  await chat.lastReply().filter({ hasText: 'Added and ordered.' }).waitFor({ timeout: 20_000 });

  // The page's own code ran, with the model's arguments.
  assert.deepEqual(pages.calls().map((c) => c.tool), ['add_to_cart', 'order_tea']);
  assert.deepEqual(pages.calls()[0].input, { tea: 'sencha', bags: 2 });
  assert.equal(pages.calls()[1].input.tea, 'gyokuro');
  assert.equal(await tab.locator('#cart').innerText(), 'Cart: sencha');
  // Its answers went back quoted as web content, with the page's origin.
  const [added] = responses(chat.chatRequests()[1]);
  const text = JSON.stringify(added.response);
  assert.match(text, /Added sencha\. The cart holds 1 item\(s\)\./);
  assert.match(text, /Web content returned by the page's tool add_to_cart/);
  assert.ok(text.includes(`URL: ${pages.origin}`), text);

  // Navigated away: the page's tools are gone from the next request.
  await tab.goto(pages.url('/plain'));
  await tab.bringToFront();
  chat.fake.script([{ chunks: textChunks('No shop here.') }]);
  await chat.send('Anything to buy?');
  await chat.lastReply().filter({ hasText: 'No shop here.' }).waitFor();
  assert.ok(!declared(chat.chatRequests().at(-1)).some((d) => d.name.startsWith('page_')));
  await menu.locator('summary').click();
  await panel().getByTestId('page-tools-note').filter({ hasText: 'This page offers no tools.' }).waitFor();
  await menu.locator('summary').click();
});

test('a tool the page registers while the menu is open shows at once (toolchange)', async () => {
  await tab.goto(pages.url('/webmcp'));
  await tab.bringToFront();
  const menu = panel().getByTestId('tools-menu');
  await menu.locator('summary').click();
  const listed = panel().getByTestId('page-tools');
  await listed.locator('[data-tool="order_tea"]').waitFor();
  // The page's own script adds a tool; the menu stays open meanwhile.
  await tab.evaluate(() => document.modelContext.registerTool({
    name: 'brew_tea', description: 'Brews a pot.', inputSchema: { type: 'object', properties: {} },
    execute: async () => 'Brewing.',
  }));
  await listed.locator('[data-tool="brew_tea"]').waitFor({ timeout: 5_000 });
  const registered = await tab.evaluate(async () => (await document.modelContext.getTools()).map((t) => t.name));
  assert.ok(registered.includes('brew_tea'), registered.join());
  await menu.locator('summary').click();
});

test('without WebMCP in the browser, the menu says how to turn it on and nothing breaks', async () => {
  const plain = await openChat();
  try {
    const shopTab = await plain.browser.context.newPage();
    await shopTab.goto(pages.url('/webmcp'));
    await shopTab.bringToFront();
    await plain.reload();
    await plain.page.getByTestId('tools-menu').locator('summary').click();
    const note = plain.page.getByTestId('page-tools-note');
    await note.filter({ hasText: 'chrome://flags/#enable-webmcp-testing' }).waitFor();
    await screenshot(plain.page, 'page-tools-unsupported-light');
    plain.fake.script([{ chunks: textChunks('Hello.') }]);
    await plain.send('Hi');
    await plain.lastReply().filter({ hasText: 'Hello.' }).waitFor();
    assert.ok(!declared(plain.chatRequests()[0]).some((d) => d.name.startsWith('page_')));
  } finally {
    await plain.close();
  }
});

test("in Japanese, a page tool's confirmation reads in Japanese (light and dark)", async () => {
  const ja = await openChat({ webmcp: true, locale: 'ja' });
  try {
    const shop = await ja.browser.context.newPage();
    await shop.goto(pages.url('/webmcp'));
    await shop.bringToFront();
    await ja.reload();
    ja.fake.script([
      { chunks: [functionCallChunk([{ name: 'page_127_0_0_1_add_to_cart', args: { tea: 'sencha', bags: 1 } }])] },
      { chunks: textChunks('追加しました。') },
    ]);
    await ja.send('煎茶をカートに入れて');
    const card = ja.page.getByTestId('tool-card').last();
    await card.and(ja.page.locator('[data-state="confirm"]')).waitFor();
    assert.equal(await card.getByRole('button', { name: '今回だけ許可' }).count(), 1);
    await ja.page.bringToFront();
    for (const scheme of ['light', 'dark']) {
      await ja.page.emulateMedia({ colorScheme: scheme });
      await screenshot(ja.page, `page-tools-confirm-ja-${scheme}`);
    }
    await card.getByRole('button', { name: '拒否' }).click();
    await ja.lastReply().filter({ hasText: '追加しました。' }).waitFor();
  } finally {
    await ja.close();
  }
});
