// The activeTab path, with a real keyboard shortcut: Chromium runs headed on a virtual display
// (Xvfb) and xdotool presses GemiPanel's command, which is what grants `activeTab` (Playwright
// cannot). The page is on a host GemiPanel has no permission for (article.test, resolved to
// 127.0.0.1), so before the shortcut a browser tool's card asks for access and the model
// hears why; after it, the page is read and the visible part captured as an image part of the
// right type and size.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openChat } from './chat_page.mjs';
import { screenshot, outDir } from './harness.mjs';
import { startPages } from '../fixtures/pages/server.mjs';
import { textChunks, functionCallChunk } from '../fixtures/fake-gemini/server.mjs';

let xvfb;
let chat;
let pages;
let tab;
let articleUrl;

/** A display number nobody uses. */
function freeDisplay() {
  for (let n = 90 + Math.floor(Math.random() * 100); ; n++) {
    if (!existsSync(`/tmp/.X${n}-lock`)) return n;
  }
}

before(async () => {
  pages = await startPages();
  const display = freeDisplay();
  xvfb = spawn('Xvfb', [`:${display}`, '-screen', '0', '1000x700x24', '-nolisten', 'tcp'], { stdio: 'ignore' });
  for (let i = 0; i < 50 && !existsSync(`/tmp/.X11-unix/X${display}`); i++) await new Promise((r) => setTimeout(r, 100));
  process.env.DISPLAY = `:${display}`;
  chat = await openChat({
    headless: false,
    args: ['--window-position=0,0', '--window-size=1000,700', '--host-resolver-rules=MAP article.test 127.0.0.1, MAP other.test 127.0.0.1'],
  });
  articleUrl = `http://article.test:${new URL(pages.origin).port}/article`;
  tab = await chat.browser.context.newPage();
  await tab.goto(articleUrl);
  await tab.bringToFront();
  await chat.reload();
});
after(async () => {
  await chat?.close();
  await pages?.close();
  xvfb?.kill();
});

const panel = () => chat.page;
const responses = (req) => req.body.contents.at(-1).parts;

/** GemiPanel's keyboard command, pressed in the browser window. */
function pressShortcut() {
  const windows = execFileSync('xdotool', ['search', '--onlyvisible', '--class', 'chromium']).toString().trim().split('\n');
  execFileSync('xdotool', ['windowfocus', '--sync', windows[0]]);
  execFileSync('xdotool', ['key', '--delay', '100', 'ctrl+shift+y']);
}

/** One screen pixel, to see Chrome's permission prompt come up (the page greys out). */
const pixel = () => execFileSync('import', ['-window', 'root', '-crop', '1x1+40+300', 'txt:-']).toString();

/**
 * Clicks `button` (which asks Chrome for a permission) and accepts the prompt with the keyboard
 * once it is up (TESTING.md, "Accepting Chrome's permission prompt"): focus starts on Deny.
 */
async function clickAndAllow(button) {
  const before = pixel();
  await button.click();
  for (let i = 0; i < 100 && pixel() === before; i++) await new Promise((r) => setTimeout(r, 100));
  assert.notEqual(pixel(), before, 'the permission prompt did not come up');
  await new Promise((r) => setTimeout(r, 800));
  execFileSync('xdotool', ['key', '--delay', '100', 'Tab', 'Return']);
  for (let i = 0; i < 50 && pixel() !== before; i++) await new Promise((r) => setTimeout(r, 100));
}

/** Width and height from a JPEG's start-of-frame marker. */
function jpegSize(bytes) {
  for (let i = 2; i < bytes.length - 9;) {
    if (bytes[i] !== 0xff) return null;
    const marker = bytes[i + 1];
    const length = bytes.readUInt16BE(i + 2);
    if (marker >= 0xc0 && marker <= 0xc2) return { height: bytes.readUInt16BE(i + 5), width: bytes.readUInt16BE(i + 7) };
    i += 2 + length;
  }
  return null;
}

test('before GemiPanel is invoked on the page, a browser tool asks for access and the model hears why', async () => {
  await chat.request({ type: 'edit_settings', edit: { type: 'set_source', source: 'browser', change: { trust: true } } });
  await chat.reload();
  chat.fake.script([
    { chunks: [functionCallChunk([{ name: 'browser_read_page', args: {} }])] },
    { chunks: textChunks('I cannot read it yet.') },
  ]);
  await chat.send('What does this page say?');
  const card = panel().getByTestId('tool-card').last();
  await card.and(panel().locator('[data-state="access"]')).waitFor();
  assert.match(await card.getByTestId('access-card').innerText(), /GemiPanel may not read this tab yet/);
  await panel().bringToFront();
  for (const scheme of ['light', 'dark']) {
    await panel().emulateMedia({ colorScheme: scheme });
    await screenshot(panel(), `page-access-${scheme}`);
  }
  await panel().emulateMedia({ colorScheme: 'light' });
  await tab.bringToFront();
  await card.getByRole('button', { name: 'Not now' }).click();
  await chat.lastReply().filter({ hasText: 'I cannot read it yet.' }).waitFor();
  const [answer] = responses(chat.chatRequests()[1]).map((p) => p.functionResponse);
  assert.match(JSON.stringify(answer.response), /did not give GemiPanel access/);
});

test('the keyboard shortcut grants activeTab: the page is read and the visible part captured as a JPEG within limits', async () => {
  chat.fake.reset();
  await tab.bringToFront();
  pressShortcut();
  chat.fake.script([
    { chunks: [functionCallChunk([{ name: 'browser_read_page', args: {} }])] },
    { chunks: [functionCallChunk([{ name: 'browser_screenshot', args: {} }])] },
    { chunks: textChunks('A tea house article.') },
  ]);
  await chat.send('Read it and look at it.');
  await chat.lastReply().filter({ hasText: 'A tea house article.' }).waitFor({ timeout: 30_000 });
  const [, read, shot] = chat.chatRequests();
  const text = JSON.stringify(responses(read)[0].functionResponse.response);
  assert.ok(text.includes('The oldest of them, Tsuen') && text.includes(`URL: ${articleUrl}`), text.slice(0, 300));
  // Gemini 3 takes media inside the function response, named by a `$ref` in `response`
  // (https://ai.google.dev/gemini-api/docs/function-calling#multimodal).
  const shotResponse = responses(shot)[0].functionResponse;
  const image = shotResponse.parts?.find((p) => p.inlineData)?.inlineData;
  assert.ok(image, JSON.stringify(shotResponse).slice(0, 300));
  assert.ok(JSON.stringify(shotResponse.response).includes('"$ref"'), 'the response names the image');
  assert.equal(image.mimeType, 'image/jpeg');
  const bytes = Buffer.from(image.data, 'base64');
  assert.ok(bytes.length > 1000 && bytes.length <= 1_500_000, `${bytes.length} bytes`);
  writeFileSync(join(outDir, 'page-screenshot-sent.jpg'), bytes);
  const size = jpegSize(bytes);
  assert.ok(size && Math.max(size.width, size.height) <= 1536 && size.width >= 50, JSON.stringify(size));
  const card = panel().getByTestId('tool-card').last();
  assert.equal(await card.getAttribute('data-state'), 'done');
  assert.match(await card.locator('pre.result').textContent(), /image\/jpeg/);
});

test('without an invocation, the card asks to see the tabs, then for the site; both prompts accepted, the page is read', async () => {
  // Away to another site and back: the activeTab grant of the shortcut is gone.
  const port = new URL(pages.origin).port;
  await tab.goto(`http://other.test:${port}/plain`);
  await tab.goto(articleUrl);
  await tab.bringToFront();
  // Its address is hidden from GemiPanel now; it is the active tab.
  const tabId = await panel().evaluate(async () => (await chrome.tabs.query({ active: true, lastFocusedWindow: true }))[0].id);
  await chat.request({ type: 'edit_settings', edit: { type: 'set_source', source: 'browser', change: { trust: true } } });
  chat.fake.reset();
  chat.fake.script([
    { chunks: [functionCallChunk([{ name: 'browser_read_page', args: { tab_id: tabId } }])] },
    { chunks: textChunks('Now I can read it.') },
  ]);
  await chat.send('Read that tab.');
  await panel().bringToFront();
  const card = panel().getByTestId('tool-card').last();
  await card.and(panel().locator('[data-state="access"]')).waitFor();
  await clickAndAllow(card.getByRole('button', { name: 'Let GemiPanel see my tabs' }));
  // With the tabs seen, the card knows which site to ask for.
  await card.getByTestId('access-card').filter({ hasText: 'article.test' }).waitFor({ timeout: 15_000 });
  await screenshot(panel(), 'page-access-site-light');
  await clickAndAllow(card.getByRole('button', { name: 'Allow', exact: true }));
  await chat.lastReply().filter({ hasText: 'Now I can read it.' }).waitFor({ timeout: 20_000 });
  const [answer] = responses(chat.chatRequests()[1]).map((p) => p.functionResponse);
  assert.match(JSON.stringify(answer.response), /The oldest of them, Tsuen/);
  const granted = await panel().evaluate(() => chrome.permissions.getAll());
  assert.ok(granted.permissions.includes('tabs'), JSON.stringify(granted));
  assert.ok(granted.origins.includes('http://article.test/*'), JSON.stringify(granted));
  // The chip, which follows every tab now, names the page once it is in front.
  await tab.bringToFront();
  await panel().getByTestId('page-chip').filter({ hasText: 'Tea houses of Kyoto' }).waitFor();
});
