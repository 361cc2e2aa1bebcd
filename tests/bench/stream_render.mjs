// Benchmark: main-thread time per streamed chunk while a 50,000-character markdown reply
// arrives in 20-character chunks. Rendering must not grow with the reply: prints the p95 of the
// last 1,000 chunks divided by the p95 of the first 1,000 (goal ≤ 2).
//
// Measured from outside the product: an init script wraps ReadableStreamDefaultReader.read, so
// each chunk of the Gemini stream starts a clock when it is handed to the page, and the clock
// stops in the next task after forcing style and layout — covering parsing, the chat state
// machine, the Yew render and the layout of the grown transcript.
import { launch } from '../e2e/harness.mjs';
import { startFakeGemini, textChunks } from '../fixtures/fake-gemini/server.mjs';

const REPLY_CHARS = 50_000;
const CHUNK_CHARS = 20;
const WINDOW = 1_000;

/** A markdown reply of paragraphs, lists and code, like a long real answer. */
function markdownReply(length) {
  const parts = [];
  for (let i = 0; parts.join('').length < length; i++) {
    parts.push(`## Section ${i}\n\nThis paragraph explains **step ${i}** with \`inline code\` and a [link](https://example.com/${i}).\n\n`);
    parts.push(`- first point of ${i}\n- second point with *emphasis*\n\n`);
    if (i % 3 === 0) parts.push('```rust\nfn main() {\n    println!("hello");\n}\n```\n\n');
  }
  return parts.join('').slice(0, length);
}

const API_KEY = 'bench-key';
const fake = await startFakeGemini({ apiKey: API_KEY });
const browser = await launch();
try {
  await browser.context.addInitScript(() => {
    const read = ReadableStreamDefaultReader.prototype.read;
    globalThis.__chunkMs = [];
    ReadableStreamDefaultReader.prototype.read = function () {
      return read.call(this).then((result) => {
        if (!result.done) {
          const start = performance.now();
          setTimeout(() => {
            void document.body.offsetHeight; // style and layout of what the chunk changed
            globalThis.__chunkMs.push(performance.now() - start);
          }, 0);
        }
        return result;
      });
    };
  });
  const page = await browser.context.newPage();
  await page.goto(browser.url('sidepanel.html'));
  await page.evaluate(({ key, base }) => chrome.storage.local.set({
    settings: { version: 6, gemini: { api_key: key, base_url: base }, servers: [] },
  }), { key: API_KEY, base: fake.url });
  await page.reload();
  await page.getByTestId('worker-status').and(page.locator('[data-state="ok"]')).waitFor();

  const reply = markdownReply(REPLY_CHARS);
  const chunks = textChunks(reply, { size: CHUNK_CHARS });
  fake.script([{ chunks, delayMs: 10 }]);
  await page.evaluate(() => { globalThis.__chunkMs.length = 0; });
  const input = page.getByTestId('input');
  await input.fill('Write a long answer');
  await input.press('Enter');
  await page.getByTestId('reply').last().and(page.locator('[data-state="done"]'))
    .waitFor({ timeout: 180_000 });
  await page.waitForTimeout(200);
  const times = await page.evaluate(() => globalThis.__chunkMs);
  // The network may hand over two chunks in one read; then the windows shrink to half of the
  // reads each, and the output says so.
  if (times.length < 500) throw new Error(`only ${times.length} chunks were measured`);
  const window = Math.min(WINDOW, Math.floor(times.length / 2));
  const p95 = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.95)];
  const first = p95(times.slice(0, window));
  const last = p95(times.slice(-window));
  console.log(`windows of ${window} reads`);
  console.log(`${chunks.length} chunks of ${CHUNK_CHARS} characters, ${times.length} measured`);
  console.log(`chunk_p95_first_ms=${first.toFixed(2)}`);
  console.log(`chunk_p95_last_ms=${last.toFixed(2)}`);
  console.log(`chunk_p95_ratio=${(last / first).toFixed(2)}`);
} finally {
  await browser.close();
  await fake.close();
}
