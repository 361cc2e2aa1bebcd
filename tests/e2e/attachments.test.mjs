// Files attached in the side panel's composer (issue 21, item 5), against the fake Gemini API:
// an image by the picker (keyboard), one by paste and a text file by drop reach the model as
// inlineData; a type the model does not read is refused in words; a PDF just over its 50 MB
// inline limit goes through the Files API's resumable upload with a progress bar, and the
// request names it in fileData; Cancel stops an upload and nothing is sent. English and
// Japanese, light and dark.
import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import { openChat } from './chat_page.mjs';
import { textChunks } from '../fixtures/fake-gemini/server.mjs';

let chat;
let fake;
let page;
let dir;
let bigPdf;
// Just over the documented 50 MB a PDF may take inline
// (https://ai.google.dev/gemini-api/docs/file-input-methods).
const BIG_PDF_BYTES = 50 * 1024 * 1024 + 4096;

before(async () => {
  chat = await openChat();
  ({ fake, page } = chat);
  dir = mkdtempSync(join(tmpdir(), 'gemipanel-attach-'));
  // Playwright hands files over 50 MB to the page only by path.
  bigPdf = join(dir, 'big-report.pdf');
  const bytes = Buffer.alloc(BIG_PDF_BYTES, 0x20);
  bytes.write('%PDF-1.4\n', 0);
  writeFileSync(bigPdf, bytes);
});
after(async () => {
  await chat?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});
beforeEach(async () => {
  fake.reset();
  await chat.reload();
});

/** A `size`×`size` PNG of stripes in two colours, so its thumbnail is visibly an image. */
function png(size, [r1, g1, b1], [r2, g2, b2]) {
  const crc = (buf) => {
    let c = ~0;
    for (const b of buf) {
      c ^= b;
      for (let k = 0; k < 8; k++) c = (c >>> 1) ^ (0xedb88320 & -(c & 1));
    }
    return ~c >>> 0;
  };
  const chunk = (type, data) => {
    const len = Buffer.alloc(4); len.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type), data]);
    const sum = Buffer.alloc(4); sum.writeUInt32BE(crc(body));
    return Buffer.concat([len, body, sum]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0); header.writeUInt32BE(size, 4);
  header[8] = 8; header[9] = 2;
  const rows = [];
  for (let y = 0; y < size; y++) {
    const row = [0];
    for (let x = 0; x < size; x++) row.push(...(((x + y) >> 2) % 2 ? [r1, g1, b1] : [r2, g2, b2]));
    rows.push(Buffer.from(row));
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header), chunk('IDAT', deflateSync(Buffer.concat(rows))), chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** Files handed to the page as a paste or a drop, as the browser builds them. */
async function pasteOrDrop(target, how, files) {
  await target.evaluate((element, { how, files }) => {
    const data = new DataTransfer();
    for (const f of files) {
      data.items.add(new File([Uint8Array.from(atob(f.base64), (c) => c.charCodeAt(0))], f.name, { type: f.type }));
    }
    if (how === 'paste') {
      element.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
    } else {
      element.dispatchEvent(new DragEvent('dragover', { dataTransfer: data, bubbles: true, cancelable: true }));
      element.dispatchEvent(new DragEvent('drop', { dataTransfer: data, bubbles: true, cancelable: true }));
    }
  }, { how, files: files.map((f) => ({ ...f, base64: f.buffer.toString('base64') })) });
}

/**
 * Picks files with the attach button: reached with the keyboard (Shift+Tab from the input),
 * and the chooser opened by a click on it. (Space and Enter click it too, which the first test
 * checks; under Playwright's synthetic key events Chrome opened the chooser from them only now
 * and then.)
 */
async function pickWithKeyboard(files) {
  await page.getByTestId('input').focus();
  await page.keyboard.press('Shift+Tab');
  assert.equal(await page.evaluate(() => document.activeElement?.dataset.testid), 'attach');
  const [chooser] = await Promise.all([page.waitForEvent('filechooser'), page.getByTestId('attach').click()]);
  assert.ok(chooser.isMultiple());
  await chooser.setFiles(files);
}

const generateRequests = () => fake.requests().filter((r) => r.method === 'POST' && r.path.includes(':streamGenerateContent'));

test('images by the picker and by paste, a text file by drop: chips with previews, sent inline', async () => {
  const red = png(48, [220, 40, 40], [250, 200, 60]);
  const blue = png(48, [40, 90, 220], [200, 230, 250]);
  await pickWithKeyboard([{ name: 'stripes.png', mimeType: 'image/png', buffer: red }]);
  await pasteOrDrop(page.getByTestId('input'), 'paste', [{ name: 'pasted.png', type: 'image/png', buffer: blue }]);
  const notes = Buffer.from('# Notes\nTea at five.\n');
  await pasteOrDrop(page.locator('footer.composer'), 'drop', [{ name: 'notes.md', type: '', buffer: notes }]);
  // A type the model does not read is refused, in words naming it.
  await pickWithKeyboard([{ name: 'archive.zip', mimeType: 'application/zip', buffer: Buffer.from('PK') }]);
  const note = page.getByTestId('file-note');
  await note.waitFor();
  assert.match(await note.innerText(), /“archive\.zip” cannot be attached: Gemini reads images/);

  const chips = page.getByTestId('file-chip');
  assert.equal(await chips.count(), 3);
  // The keyboard presses the button: Space and Enter open the picker (the file input is clicked).
  await page.evaluate(() => {
    window.pickerOpened = 0;
    window.countPicker = (e) => { window.pickerOpened += 1; e.preventDefault(); };
    document.querySelector('[data-testid="file-input"]').addEventListener('click', window.countPicker);
  });
  await page.getByTestId('attach').focus();
  await page.keyboard.press('Space');
  await page.keyboard.press('Enter');
  assert.equal(await page.evaluate(() => {
    document.querySelector('[data-testid="file-input"]').removeEventListener('click', window.countPicker);
    return window.pickerOpened;
  }), 2);
  assert.deepEqual(await chips.evaluateAll((els) => els.map((e) => e.dataset.kind)), ['image', 'image', 'text']);
  assert.equal(await chips.nth(0).locator('img.thumb').count(), 1);
  // The thumbnail shows the image itself.
  assert.ok(await chips.nth(0).locator('img.thumb').evaluate((img) => img.complete && img.naturalWidth === 48));
  assert.match(await chips.nth(2).innerText(), /notes\.md[\s\S]*text\/plain · 21 B/);
  await chat.shoot('attachments');

  // Removing one with the keyboard: Tab to its button, Enter.
  await pickWithKeyboard([{ name: 'extra.png', mimeType: 'image/png', buffer: red }]);
  assert.equal(await chips.count(), 4);
  await chips.nth(3).getByTestId('remove-file').focus();
  assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('aria-label')), 'Remove extra.png');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="file-chip"]').length === 3);
  assert.equal(await page.evaluate(() => document.activeElement?.dataset.testid), 'input', 'the focus goes on from the input');

  fake.script([{ chunks: textChunks('Two striped squares and a note about tea.') }]);
  await chat.send('What are these?');
  await chat.lastReply().and(page.locator('[data-state="done"]')).waitFor();
  assert.equal(await chips.count(), 0, 'the chips went with the message');
  const [request] = generateRequests();
  const parts = request.body.contents.at(-1).parts;
  const inline = parts.filter((p) => p.inlineData).map((p) => p.inlineData);
  assert.deepEqual(inline, [
    { mimeType: 'image/png', data: red.toString('base64') },
    { mimeType: 'image/png', data: blue.toString('base64') },
    { mimeType: 'text/plain', data: notes.toString('base64') },
  ]);
  const texts = parts.filter((p) => p.text).map((p) => p.text);
  assert.deepEqual(texts, [
    '[A file the person attached: “stripes.png” (image/png)]',
    '[A file the person attached: “pasted.png” (image/png)]',
    '[A file the person attached: “notes.md” (text/plain)]',
    'What are these?',
  ]);
  assert.equal(fake.uploads().length, 0, 'small files are not uploaded');
  // The message shows what it carried.
  const sent = page.getByTestId('context-sent').last().locator('li[data-kind="file"]');
  const shown = await sent.allInnerTexts();
  assert.equal(shown.length, 3, shown.join());
  ['stripes.png', 'pasted.png', 'notes.md'].forEach((name, i) => assert.match(shown[i], new RegExp(`^File\\s*${name.replace('.', '\\.')}$`)));
});

test('a PDF over its inline limit is uploaded with the Files API, with a progress bar, and named in fileData', async () => {
  fake.setChunkDelay(300);
  await pickWithKeyboard(bigPdf);
  const chip = page.getByTestId('file-chip');
  assert.match(await chip.innerText(), /big-report\.pdf[\s\S]*application\/pdf · 50 MB/);
  fake.script([{ chunks: textChunks('A long report.') }]);
  await chat.send('Summarise this report.');
  const progress = page.getByTestId('upload');
  await progress.waitFor();
  await page.waitForFunction(() => Number(document.querySelector('[data-testid="upload-progress"]')?.value) > 0);
  assert.match(await progress.innerText(), /Uploading “big-report\.pdf”: [\d.]+ MB of 50 MB/);
  await chat.shoot('upload-progress');
  await chat.lastReply().and(page.locator('[data-state="done"]')).waitFor();
  assert.equal(await progress.count(), 0, 'the bar goes once the upload ends');

  const [session] = fake.uploads();
  assert.ok(session.done);
  assert.equal(session.bytes, BIG_PDF_BYTES);
  assert.equal(session.chunks, Math.ceil(BIG_PDF_BYTES / (8 * 1024 * 1024)), 'chunks of the 8 MiB granularity');
  assert.equal(session.displayName, 'big-report.pdf');
  const start = fake.requests().find((r) => r.path === '/upload/v1beta/files');
  assert.equal(start.headers['x-goog-upload-protocol'], 'resumable');
  assert.equal(start.headers['x-goog-upload-header-content-length'], String(BIG_PDF_BYTES));
  const [request] = generateRequests();
  const parts = request.body.contents.at(-1).parts;
  assert.deepEqual(parts.find((p) => p.fileData), { fileData: { mimeType: 'application/pdf', fileUri: session.file.uri } });
  assert.equal(parts.filter((p) => p.inlineData).length, 0);

  // 48 hours later the file is gone from the API: the chat says what happened and what to do.
  fake.addFile({ name: session.file.name, mimeType: 'application/pdf', expirationTime: new Date(Date.now() - 1000).toISOString() });
  await chat.send('And the appendix?');
  const error = page.getByTestId('error').last();
  await error.waitFor();
  assert.match(await error.innerText(), /A file attached earlier in this chat is no longer on Gemini's servers \(uploaded files are kept 48 hours\)\. Start a new chat and attach the file again\./);
  assert.equal(generateRequests().length, 2, 'refused by the API as the real one refuses it');
  await chat.shoot('file-gone');
});

test('Cancel stops an upload: the message is not sent', async () => {
  fake.setChunkDelay(2000);
  await pickWithKeyboard(bigPdf);
  await chat.send('Summarise this report.');
  await page.getByTestId('upload').waitFor();
  await page.getByTestId('cancel-upload').click();
  await page.locator('p.notice').filter({ hasText: 'Upload of “big-report.pdf” cancelled' }).waitFor();
  assert.equal(await page.getByTestId('upload').count(), 0);
  assert.equal(generateRequests().length, 0);
  const [session] = fake.uploads();
  assert.ok(!session.done && session.bytes < BIG_PDF_BYTES, JSON.stringify(session));
  // The composer takes a message again.
  assert.equal(await page.getByTestId('send').count(), 1);
});

test('in Japanese: chips, a refused type and the progress bar', async () => {
  const ja = await openChat({ locale: 'ja' });
  try {
    await ja.reload();
    const jpage = ja.page;
    const pick = async (files) => {
      const [chooser] = await Promise.all([jpage.waitForEvent('filechooser'), jpage.getByTestId('attach').click()]);
      await chooser.setFiles(files);
    };
    await pick([
      { name: '縞模様.png', mimeType: 'image/png', buffer: png(48, [30, 160, 90], [240, 240, 240]) },
      { name: '議事録.txt', mimeType: 'text/plain', buffer: Buffer.from('お茶は五時に。') },
      { name: '動画.gif', mimeType: 'image/gif', buffer: Buffer.from('GIF89a') },
    ]);
    assert.match(await jpage.getByTestId('file-note').innerText(), /「動画\.gif」は添付できません/);
    assert.equal(await jpage.getByTestId('file-chip').count(), 2);
    await ja.shoot('attachments-ja');
    ja.fake.setChunkDelay(1500);
    await pick(bigPdf);
    await ja.send('要約してください。');
    await jpage.getByTestId('upload').waitFor();
    assert.match(await jpage.getByTestId('upload').innerText(), /「big-report\.pdf」をアップロード中/);
    await ja.shoot('upload-progress-ja');
    await jpage.getByTestId('cancel-upload').click();
    await jpage.locator('p.notice').filter({ hasText: 'アップロードを取り消しました' }).waitFor();
  } finally {
    await ja.close();
  }
});
