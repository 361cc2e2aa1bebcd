// The chat's activity view: every tool call made for the chat (the model's, the person's from
// the tool browser), who asked, the arguments, what came back, and what left the browser with
// a message besides its words; kept with the chat across a reload.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openChat } from './chat_page.mjs';
import { textChunks, functionCallChunk } from '../fixtures/fake-gemini/server.mjs';

let chat;
let dir;

before(async () => {
  chat = await openChat();
  dir = mkdtempSync(join(tmpdir(), 'gemipanel-activity-'));
});
after(async () => {
  await chat?.close();
  rmSync(dir, { recursive: true, force: true });
});

test('the activity lists the model\'s and the person\'s tool calls and the file a message carried, and is kept with the chat', async () => {
  const { page } = chat;
  await chat.addEverything({ trust: true });
  await chat.reload();

  // A message with a file, whose turn calls a tool.
  const file = join(dir, 'notes.txt');
  writeFileSync(file, 'Kyoto notes');
  await page.getByTestId('file-input').setInputFiles(file);
  chat.fake.script([
    { chunks: [functionCallChunk([{ name: 'mcp_everything_echo', args: { message: 'from the model' } }])] },
    { chunks: textChunks('Echoed.') },
  ]);
  await chat.send('Echo this');
  await chat.lastReply().filter({ hasText: 'Echoed.' }).waitFor({ timeout: 20_000 });

  // The person runs a tool from the tool browser.
  await page.getByTestId('tools').click();
  const browser = page.getByTestId('tool-browser');
  await browser.locator('[data-server="everything"] summary').click();
  await browser.locator('[data-testid="tool-entry"][data-tool="echo"]').click();
  const runner = page.getByTestId('tool-runner');
  await runner.getByLabel(/message/).fill('from the person');
  await runner.getByTestId('tool-run').click();
  await page.locator('[data-testid="tool-card"][data-state="done"]').first().waitFor({ timeout: 20_000 });
  await page.getByTestId('tools').click();

  await page.getByTestId('activity-open').click();
  const activity = page.getByTestId('activity');
  await activity.waitFor();
  // Focus is in the view: Escape acts there.
  assert.equal(await page.evaluate(() => document.activeElement?.dataset.testid), 'activity-close');
  const rows = activity.locator('.activity-row');
  await rows.nth(2).waitFor();
  const described = await rows.evaluateAll((els) => els.map((el) =>
    [el.dataset.kind, el.dataset.asker ?? '', el.dataset.state ?? '', el.innerText.replace(/\s+/g, ' ')]));
  assert.equal(described.length, 3, JSON.stringify(described));
  // Newest first: the person's run, the model's call, the file sent with the message.
  assert.deepEqual(described.map(([kind, asker]) => `${kind}:${asker}`), ['tool:person', 'tool:model', 'sent:']);
  assert.match(described[0][3], /echo on everything run by you done · \d+ bytes back · \d+ ms/);
  assert.match(described[1][3], /echo on everything asked by Gemini done/);
  assert.match(described[2][3], /Sent with your message.*notes\.txt/);
  await rows.nth(1).locator('summary').click();
  assert.match(await rows.nth(1).locator('pre').innerText(), /"message": "from the model"/);
  await chat.shoot('activity');

  await page.keyboard.press('Escape');
  await page.getByTestId('reply').last().waitFor();
  assert.equal(await page.getByTestId('activity').count(), 0);

  // Kept with the chat: a reloaded panel reopens it with its activity.
  await chat.reload();
  await page.getByTestId('history').click();
  await page.getByTestId('saved-chat').filter({ hasText: 'Echo this' }).locator('button.open').click();
  await page.getByTestId('activity-open').click();
  assert.equal(await page.getByTestId('activity').locator('.activity-row').count(), 3);
});
