// Saved chats that can leave (issue 27): export as JSON and Markdown, import JSON back, search
// over many saved chats, and deleting several or all, in the built extension's side panel.
import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openChat } from './chat_page.mjs';
import { textChunks } from '../fixtures/fake-gemini/server.mjs';

// Python's zipfile reads the archive (checking each entry's CRC), as for the store package:
// python3 is on every machine the tests run on, `unzip` is not.
const zipNames = (path) => execFileSync('python3', ['-c',
  'import sys, zipfile; print("\\n".join(zipfile.ZipFile(sys.argv[1]).namelist()))', path],
{ encoding: 'utf8' }).trim().split('\n');
const zipRead = (path, name) => execFileSync('python3', ['-c',
  'import sys, zipfile; sys.stdout.buffer.write(zipfile.ZipFile(sys.argv[1]).read(sys.argv[2]))', path, name]);

let chat;
let page;
let dir;

before(async () => {
  chat = await openChat();
  ({ page } = chat);
  dir = mkdtempSync(join(tmpdir(), 'gemipanel-chat-files-'));
});
after(async () => {
  await chat?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});
beforeEach(async () => {
  chat.fake.reset();
  await clearChats();
  await chat.reload();
});

async function clearChats() {
  await page.evaluate(async () => {
    const all = await chrome.storage.local.get(null);
    await chrome.storage.local.remove(Object.keys(all).filter((k) => k === 'chats' || k.startsWith('chat:')));
  });
}

/** The saved chats as stored: the index and every `chat:<id>`. */
async function stored() {
  return page.evaluate(async () => {
    const all = await chrome.storage.local.get(null);
    const chats = Object.fromEntries(Object.entries(all).filter(([k]) => k.startsWith('chat:'))
      .map(([k, v]) => [k, JSON.parse(v)]));
    return { index: all.chats ? JSON.parse(all.chats) : null, chats };
  });
}

/** A saved chat as the panel writes it, with a tool call and an attached image. */
function savedChat(id, title, updated, words) {
  return {
    id, title, created_ms: updated - 1000, updated_ms: updated, model: 'gemini-3.8-flash',
    history: [
      { role: 'user', parts: [{ text: words }, { inlineData: { mimeType: 'image/png', data: 'iVBORw0KGgo=' } }] },
      { role: 'model', parts: [{ text: `About ${title}.` }], author: 'gemini-3.8-flash' },
    ],
    entries: [
      { user: { text: words, context: [{ kind: 'image', title: 'A picture', url: 'https://example.com/p.png' }] } },
      { tool: { call_id: 'call-1', server_id: 'srv_1', server_name: 'everything', tool: 'echo',
        args: '{\n  "message": "hi"\n}', status: 'done', read_only_hint: true, trusted_server: true,
        result: 'Echo: hi', started_ms: updated - 500, duration_ms: 12 } },
      { model: { doc: `About **${title}**.`, thoughts: '', incomplete: false, usage: null } },
    ],
  };
}

async function seed(chats) {
  await page.evaluate(async (chats) => {
    const items = { chats: JSON.stringify(chats.map((c) => ({ id: c.id, title: c.title, updated_ms: c.updated_ms }))) };
    for (const c of chats) items[`chat:${c.id}`] = JSON.stringify(c);
    await chrome.storage.local.set(items);
  }, chats);
  await chat.reload();
}

async function openHistory() {
  await page.getByTestId('history').click();
  await page.locator('.history').waitFor();
}

async function download(testId) {
  const [file] = await Promise.all([page.waitForEvent('download'), page.getByTestId(testId).first().click()]);
  const path = join(dir, file.suggestedFilename());
  await file.saveAs(path);
  return { name: file.suggestedFilename(), path };
}

const withoutTime = (archive) => ({ ...archive, exported_ms: 0 });

test('chats exported as JSON read back equal; Markdown comes with its attachments; a bad file changes nothing', async () => {
  // One chat made in the panel, against the fake Gemini API, and one with a tool call and an image.
  chat.fake.script([{ chunks: textChunks('Kyoto has **many** temples.') }]);
  await chat.send('Tell me about Kyoto');
  await chat.lastReply().and(page.locator('[data-state="done"]')).waitFor();
  await page.getByTestId('new-chat').click();
  await page.waitForFunction(async () => JSON.parse((await chrome.storage.local.get('chats')).chats ?? '[]').length === 1);
  const made = (await stored()).index;
  assert.equal(made.length, 1);
  const extra = savedChat('seeded1', 'Seeded: a / b', Date.now() - 60_000, 'What is in this picture?');
  await page.evaluate(async (c) => {
    const index = JSON.parse((await chrome.storage.local.get('chats')).chats);
    // As the panel lists a chat: with the revision stored.
    index.push({ id: c.id, title: c.title, updated_ms: c.updated_ms, revision: c.revision ?? 0 });
    await chrome.storage.local.set({ chats: JSON.stringify(index), [`chat:${c.id}`]: JSON.stringify(c) });
  }, extra);
  await chat.reload();
  await openHistory();
  await page.getByTestId('saved-chat').nth(1).waitFor();
  await chat.shoot('history-files');

  const json = await download('export-all-json');
  assert.match(json.name, /^gemipanel-chats-\d{4}-\d\d-\d\d\.json$/);
  const archive = JSON.parse(readFileSync(json.path, 'utf8'));
  assert.equal(archive.format, 'gemipanel-chats');
  assert.equal(archive.version, 1);
  const before = await stored();
  assert.deepEqual(archive.chats.map((c) => c.id), before.index.map((line) => line.id), 'every chat, in the list order');
  assert.deepEqual(archive.chats[0], before.chats[`chat:${made[0].id}`], 'the saved form, as the panel saved it');
  assert.deepEqual(archive.chats[1].history, extra.history);
  assert.equal(archive.chats[1].entries[1].tool.result, 'Echo: hi');

  // Markdown: a zip, each chat's text and the image beside it.
  const md = await download('export-all-markdown');
  assert.match(md.name, /\.zip$/);
  const names = zipNames(md.path);
  assert.deepEqual(names.sort(), ['Seeded_ a _ b.md', 'Seeded_ a _ b/01-attachment.png', 'Tell me about Kyoto.md'].sort());
  const seededMd = zipRead(md.path, 'Seeded_ a _ b.md').toString('utf8');
  assert.match(seededMd, /^# Seeded: a \/ b\n/);
  assert.match(seededMd, /<details><summary>Tool echo \(everything\): done<\/summary>\n\nArguments:\n\n```json\n\{\n {2}"message": "hi"\n\}\n```\n\nResult:\n\n```\nEcho: hi\n```\n\n<\/details>/);
  assert.match(seededMd, /\[01-attachment\.png\]\(<Seeded_ a _ b\/01-attachment\.png>\)/);
  const png = zipRead(md.path, 'Seeded_ a _ b/01-attachment.png');
  assert.deepEqual([...png], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  const kyotoMd = zipRead(md.path, 'Tell me about Kyoto.md').toString('utf8');
  assert.match(kyotoMd, /## You\n\nTell me about Kyoto\n\n## Gemini\n\nKyoto has \*\*many\*\* temples\./);

  // One chat: from its row, as JSON and as Markdown (no attachment: one .md file).
  const kyotoRow = page.getByTestId('saved-chat').filter({ hasText: 'Tell me about Kyoto' });
  await kyotoRow.getByTestId('export-chat').click();
  await chat.shoot('history-export-one');
  const one = await download('export-chat-markdown');
  assert.equal(one.name, 'Tell me about Kyoto.md');
  assert.equal(readFileSync(one.path, 'utf8'), kyotoMd);

  // Delete all, confirmed: nothing saved is left. The open chat is among them.
  await kyotoRow.locator('button.open').click();
  await chat.lastReply().filter({ hasText: 'Kyoto has many temples.' }).waitFor();
  await openHistory();
  await page.getByTestId('delete-all-chats').click();
  await page.getByTestId('confirm-delete').waitFor();
  assert.match(await page.getByTestId('confirm-delete').innerText(), /Delete all 2 saved chats\?/);
  await chat.shoot('history-delete-all');
  await page.getByTestId('confirm-delete-yes').click();
  await page.locator('.empty-history').waitFor();
  const emptied = await stored();
  assert.deepEqual(emptied.index, []);
  assert.deepEqual(emptied.chats, {});
  // The deleted open chat closed (kept open, its next change saved it again): back in the
  // chat view, a new one is there, and nothing of the old one was saved again.
  await page.getByTestId('history').click();
  await page.locator('.empty').waitFor();
  assert.equal(await page.getByTestId('reply').count(), 0);
  await openHistory();
  assert.deepEqual((await stored()).chats, {});

  // Import the file back: the same chats, the same file when exported again.
  await page.getByTestId('import-chats').setInputFiles(json.path);
  await page.getByTestId('history-status').filter({ hasText: '2 chats imported.' }).waitFor();
  await page.getByTestId('saved-chat').nth(1).waitFor();
  const imported = await stored();
  assert.deepEqual(imported.index, before.index);
  assert.deepEqual(Object.keys(imported.chats).sort(), Object.keys(before.chats).sort());
  for (const c of archive.chats) assert.deepEqual(imported.chats[`chat:${c.id}`], c, 'saved as it was in the file');
  const again = await download('export-all-json');
  assert.deepEqual(withoutTime(JSON.parse(readFileSync(again.path, 'utf8'))), withoutTime(archive));
  await page.getByTestId('saved-chat').filter({ hasText: 'Tell me about Kyoto' }).locator('button.open').click();
  await chat.lastReply().filter({ hasText: 'Kyoto has many temples.' }).waitFor();
  await openHistory();

  // The same file again: the ids are taken, so the chats come in beside them with new ones.
  await page.getByTestId('import-chats').setInputFiles(json.path);
  await page.getByTestId('history-status')
    .filter({ hasText: '2 chats imported (2 got a new id: theirs was taken).' }).waitFor();
  const doubled = await stored();
  assert.equal(doubled.index.length, 4);
  assert.equal(new Set(doubled.index.map((c) => c.id)).size, 4);
  assert.deepEqual(doubled.index.filter((c) => c.title === 'Tell me about Kyoto').length, 2);

  // Files it cannot use: a clear error, and nothing changed.
  const cases = [
    ['not-json.json', 'hello', /Import failed: This file is not JSON/],
    ['other.json', JSON.stringify({ settings: {} }), /not a GemiPanel chats export/],
    ['newer.json', JSON.stringify({ format: 'gemipanel-chats', version: 99, chats: [] }), /newer GemiPanel \(format version 99/],
    ['broken.json', JSON.stringify({ ...archive, chats: [archive.chats[0], { ...archive.chats[1], entries: 'x' }] }),
      /could not be read \(at line:column 1:\d+\): invalid type: string "x", expected a sequence/],
  ];
  for (const [name, text, expected] of cases) {
    const path = join(dir, name);
    writeFileSync(path, text);
    await page.getByTestId('import-chats').setInputFiles(path);
    await page.getByTestId('history-status').filter({ hasText: expected }).waitFor();
    assert.equal(await page.getByTestId('history-status').getAttribute('role'), 'alert');
    assert.deepEqual(await stored(), doubled, `${name} changed nothing`);
  }
  await chat.shoot('history-import-refused');
  assert.deepEqual(page.errors ?? [], []);
});

test('search over 1,000 saved chats, keyboard first; several chats deleted at once', async () => {
  const now = Date.now();
  const topics = ['Kyoto temples', 'Rust lifetimes', 'Sourdough starter', 'Tax return', 'Bird song'];
  const chats = Array.from({ length: 1000 }, (_, i) => {
    const topic = topics[i % topics.length];
    const c = savedChat(`c${String(i).padStart(4, '0')}`, `${topic} ${i}`, now - i * 1000,
      `Question ${i} about ${topic.toLowerCase()}: what should I know?`);
    c.history = [];
    return c;
  });
  chats[500].entries[2].model.doc = 'The word you are after is **zeugma**, a figure of speech.';
  await seed(chats);
  await openHistory();
  const search = page.getByTestId('chat-search');
  await search.waitFor();
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'chat-search', 'the search box has the focus');
  // Without a search the list shows the first 25 and offers the rest.
  assert.equal(await page.getByTestId('saved-chat').count(), 25);
  assert.equal(await page.locator('.show-all').innerText(), 'Show all 1000');

  // A word only in one reply's text (not a title): found once its chats are read.
  await page.evaluate(() => { window.__box = document.querySelector('#chat-search'); });
  await page.keyboard.type('zeug');
  assert.equal(await search.inputValue(), 'zeug');
  assert.ok(await page.evaluate(() => window.__box.isConnected && document.activeElement === window.__box),
    'the search box stays (and keeps the focus) while results change');
  await page.getByTestId('search-count').filter({ hasText: '1 of 1000 chats' }).waitFor();
  const hit = page.getByTestId('saved-chat');
  assert.equal(await hit.count(), 1);
  assert.match(await hit.getByTestId('search-snippet').innerText(), /zeugma/);
  await chat.shoot('history-search');

  // Titles and text, several words, any case.
  await search.fill('');
  await page.keyboard.type('SOURDOUGH 12');
  await page.getByTestId('search-count').filter({ hasText: /^\d+ of 1000 chats$/ }).waitFor();
  const titles = await page.locator('[data-testid="saved-chat"] .title').allInnerTexts();
  assert.ok(titles.length > 0 && titles.every((t) => /^Sourdough starter \d*12\d*$/.test(t) || /12/.test(t)), titles.join());
  assert.ok(titles.includes('Sourdough starter 12'), titles.join());

  await search.fill('');
  await page.keyboard.type('no such thing');
  await page.getByTestId('no-matches').waitFor();
  assert.match(await page.getByTestId('no-matches').innerText(), /No saved chat has “no such thing”/);
  await page.keyboard.press('Escape');
  assert.equal(await search.inputValue(), '');

  // Keyboard: down into the list, along it, Enter opens the chat.
  await page.keyboard.type('bird song 1');
  await page.getByTestId('search-count').waitFor();
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowDown');
  const second = (await page.locator('[data-testid="saved-chat"] .title').allInnerTexts())[1];
  assert.equal(await page.evaluate(() => document.activeElement?.querySelector('.title')?.textContent), second);
  await page.keyboard.press('Enter');
  await page.locator('.entry.user').first().filter({ hasText: `Question ${second.split(' ').pop()}` }).waitFor();

  // Several at once: two chats selected by keyboard, deleted after a confirmation.
  await openHistory();
  await page.getByTestId('chat-search').fill('tax return 99');
  const rows = page.getByTestId('saved-chat');
  await page.getByTestId('search-count').waitFor();
  const doomed = (await rows.locator('.title').allInnerTexts()).slice(0, 2);
  await rows.nth(0).getByTestId('select-chat').focus();
  await page.keyboard.press('Space');
  await rows.nth(1).getByTestId('select-chat').focus();
  await page.keyboard.press('Space');
  await page.getByTestId('delete-selected').filter({ hasText: 'Delete selected (2)' }).click();
  await page.getByTestId('confirm-delete').filter({ hasText: 'Delete 2 selected chats?' }).waitFor();
  await chat.shoot('history-delete-selected');
  await page.keyboard.press('Enter');
  await page.getByTestId('confirm-delete').waitFor({ state: 'detached' });
  // The list changes once the storage has.
  for (const title of doomed) await rows.filter({ hasText: title }).waitFor({ state: 'detached' });
  const left = await stored();
  assert.equal(left.index.length, 998);
  for (const title of doomed) {
    assert.ok(!left.index.some((c) => c.title === title), `${title} is gone from the index`);
    assert.ok(!Object.values(left.chats).some((c) => c.title === title), `${title} is gone`);
  }
});

test('the history in Japanese, light and dark', async () => {
  const ja = await openChat({ locale: 'ja' });
  try {
    const p = ja.page;
    await p.evaluate(async (chats) => {
      const items = { chats: JSON.stringify(chats.map((c) => ({ id: c.id, title: c.title, updated_ms: c.updated_ms }))) };
      for (const c of chats) items[`chat:${c.id}`] = JSON.stringify(c);
      await chrome.storage.local.set(items);
    }, [savedChat('j1', '京都のお寺', Date.now(), '金閣寺は何時に開きますか？'),
      savedChat('j2', '確定申告', Date.now() - 1000, '締め切りはいつ？')]);
    await ja.reload();
    await p.getByTestId('history').click();
    await p.getByTestId('chat-search').fill('金閣寺');
    await p.getByTestId('search-count').filter({ hasText: '2 件中 1 件' }).waitFor();
    await p.getByTestId('saved-chat').first().getByTestId('select-chat').check();
    await p.getByTestId('delete-selected').click();
    await p.getByTestId('confirm-delete').waitFor();
    await ja.shoot('history-ja');
    await p.getByRole('button', { name: 'キャンセル' }).click();
    const bad = join(dir, 'bad-ja.json');
    writeFileSync(bad, '{"format": "gemipanel-chats", "version": 7, "chats": []}');
    await p.getByTestId('import-chats').setInputFiles(bad);
    await p.getByTestId('history-status').filter({ hasText: '新しい GemiPanel' }).waitFor();
    await ja.shoot('history-import-refused-ja');
  } finally {
    await ja.close();
  }
});
