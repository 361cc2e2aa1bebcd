// What a streamed reply costs the side panel must not grow with the chat before it (issue 24):
// each chunk renders the reply, not every entry of the transcript again. Counted in bytes the
// panel's wasm allocates (its allocator counts them: `heapStats`), which do not depend on how
// fast the machine is.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openChat } from './chat_page.mjs';
import { textChunks } from '../fixtures/fake-gemini/server.mjs';

let chat;
let sent = 0;
before(async () => {
  chat = await openChat();
});
after(async () => chat?.close());

/** Bytes the panel's wasm allocated in all (the count wraps at 4 GiB). */
const allocated = () => chat.page.evaluate(async () => (await import('./wasm/sidepanel.js')).heapStats()[2]);

/** Sends a message whose reply streams in `chunks` chunks; the bytes allocated meanwhile. */
async function exchange(chunks, { delayMs = 0 } = {}) {
  const n = ++sent;
  // Five characters a chunk: `R001 word word …`.
  const mark = `R${String(n).padStart(3, '0')}`;
  chat.fake.script([{ chunks: textChunks(`${mark} ${'word '.repeat(chunks - 1)}`, { size: 5 }), delayMs }]);
  const before = await allocated();
  await chat.send(`Question ${n}`);
  await chat.lastReply().filter({ hasText: mark }).and(chat.page.locator('[data-state="done"]')).waitFor();
  // The save after the turn is in the figure too: let it end.
  await chat.page.waitForTimeout(300);
  return ((await allocated()) - before + 2 ** 32) % 2 ** 32;
}

/** What one more chunk of a reply costs, in bytes: a long reply against a short one. */
async function perChunk() {
  // Chunks apart in time, so that each renders on its own.
  const short = await exchange(2, { delayMs: 60 });
  const long = await exchange(22, { delayMs: 60 });
  return (long - short) / 20;
}

test('a chunk of a reply costs as much in a long chat as in a short one', async () => {
  // Two of each: chunks that still arrive together on a busy machine render once, and cost
  // less. The early figure is the larger, the late the smaller, so that only a real growth
  // fails.
  const early = Math.max(await perChunk(), await perChunk());
  for (let i = 0; i < 40; i++) await exchange(1);
  const late = Math.min(await perChunk(), await perChunk());
  console.log(`per chunk: ${early.toFixed(0)} B early in the chat, ${late.toFixed(0)} B after 46 exchanges`);
  // Every entry rendered again at each chunk: 3.7 times as much late as early. Now only what
  // is built for each entry at each chunk grows with the chat (about 1.3 times).
  assert.ok(late < 1.6 * early, `a chunk cost ${early.toFixed(0)} B early and ${late.toFixed(0)} B late`);
});
