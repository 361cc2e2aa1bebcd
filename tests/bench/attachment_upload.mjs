// Benchmark (issue 21, item 5): a PDF just over its 50 MB inline limit uploaded through the side
// panel (picked, sent, the Files API's resumable upload driven by the panel), against a plain
// page uploading the same number of bytes to the same fake with the same protocol and chunk
// size (8 MiB, the granularity the fake answers with). Both are timed by the fake, from the
// start request's arrival to the final chunk's answer. Prints the median of each over five
// rounds and `attachment_upload_ratio=` panel / plain (goal ≤ 1.2).
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launch } from '../e2e/harness.mjs';
import { startFakeGemini, textChunks } from '../fixtures/fake-gemini/server.mjs';

const BYTES = 50 * 1024 * 1024 + 4096;
const CHUNK = 8 * 1024 * 1024;
const ROUNDS = 5;
const API_KEY = 'bench-key';

const dir = mkdtempSync(join(tmpdir(), 'gemipanel-bench-upload-'));
const path = join(dir, 'report.pdf');
const bytes = Buffer.alloc(BYTES, 0x20);
bytes.write('%PDF-1.4\n', 0);
writeFileSync(path, bytes);

const fake = await startFakeGemini({ apiKey: API_KEY });
const browser = await launch();
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const lastSession = () => fake.uploads().at(-1);
try {
  const panel = await browser.context.newPage();
  await panel.goto(browser.url('sidepanel.html'));
  await panel.evaluate(({ key, base }) => chrome.storage.local.set({
    settings: { version: 6, gemini: { api_key: key, base_url: base }, servers: [] },
  }), { key: API_KEY, base: fake.url });
  await panel.reload();
  await panel.getByTestId('worker-status').and(panel.locator('[data-state="ok"]')).waitFor();

  // The plain page: a blank page of the fake's own origin (no CORS preflight, the strictest
  // reference), plain fetch, the same requests.
  const plain = await browser.context.newPage();
  await plain.goto(`${fake.url}/__page`);
  const plainUpload = () => plain.evaluate(async ({ base, key, size, chunk }) => {
    const file = new Blob([new Uint8Array(size).fill(0x20)], { type: 'application/pdf' });
    const start = await fetch(`${base}/upload/v1beta/files`, {
      method: 'POST',
      headers: {
        'x-goog-api-key': key,
        'X-Goog-Upload-Protocol': 'resumable',
        'X-Goog-Upload-Command': 'start',
        'X-Goog-Upload-Header-Content-Length': String(size),
        'X-Goog-Upload-Header-Content-Type': 'application/pdf',
        'Content-Type': 'application/json',
      },
      body: JSON.stringify({ file: { display_name: 'report.pdf' } }),
    });
    const session = start.headers.get('x-goog-upload-url');
    for (let offset = 0; offset < size; offset += chunk) {
      const last = offset + chunk >= size;
      const answer = await fetch(session, {
        method: 'POST',
        headers: { 'X-Goog-Upload-Command': last ? 'upload, finalize' : 'upload', 'X-Goog-Upload-Offset': String(offset) },
        body: file.slice(offset, Math.min(size, offset + chunk)),
      });
      if (last) return (await answer.json()).file.uri;
    }
    return null;
  }, { base: fake.url, key: API_KEY, size: BYTES, chunk: CHUNK });

  const panelUpload = async (round) => {
    await panel.getByTestId('file-input').setInputFiles(path);
    fake.script([{ chunks: textChunks('Read.') }]);
    const input = panel.getByTestId('input');
    await input.fill(`Read this, ${round}`);
    await input.press('Enter');
    await panel.getByTestId('reply').nth(round).and(panel.locator('[data-state="done"]'))
      .waitFor({ timeout: 120_000 });
  };

  const panelMs = [];
  const plainMs = [];
  for (let round = 0; round < ROUNDS; round++) {
    await plainUpload();
    const p = lastSession();
    if (!p.done || p.bytes !== BYTES) throw new Error(`the plain upload ended unfinished: ${JSON.stringify(p)}`);
    plainMs.push(p.finishedAt - p.startedAt);
    await panelUpload(round);
    const s = lastSession();
    if (!s.done || s.bytes !== BYTES) throw new Error(`the panel's upload ended unfinished: ${JSON.stringify(s)}`);
    panelMs.push(s.finishedAt - s.startedAt);
  }
  console.log(`${BYTES} bytes in chunks of ${CHUNK}, ${ROUNDS} rounds each`);
  console.log(`panel ms: ${panelMs.join(', ')}; plain page ms: ${plainMs.join(', ')}`);
  console.log(`attachment_upload_panel_ms=${median(panelMs)}`);
  console.log(`attachment_upload_plain_ms=${median(plainMs)}`);
  console.log(`attachment_upload_ratio=${(median(panelMs) / median(plainMs)).toFixed(2)}`);
} finally {
  await browser.close();
  await fake.close();
  rmSync(dir, { recursive: true, force: true });
}
