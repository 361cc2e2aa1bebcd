// Benchmark (issue 27): searching the history with 1,000 saved chats of a few KB each, the way a
// person types. Keystroke-to-paint p95 in the history's search box, against typing in the
// composer of an empty chat (the same page, the same measure as app_load.mjs's typing).
// Prints both p95s and `history_search_ratio=` (goal ≤ 1.5).
//
// Each query is typed letter by letter from an empty box; the chats' text has been read (a word
// found only in one reply's text must be found first), so every keystroke searches titles and
// text.
import { launch } from '../e2e/harness.mjs';

const CHATS = 1000;
const ROUNDS = Number(process.env.GEMIPANEL_BENCH_SEARCH_ROUNDS ?? 4);
const QUERIES = ['kyoto temple', 'rust borrow 42', 'sourdough', 'tax 9', 'bird song morning'];
const KEYS = 120;
const p = (xs, q) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * q))];

const topics = ['Kyoto temple visits', 'Rust borrow checker', 'Sourdough starter', 'Tax return questions', 'Bird song in the morning'];
const filler = 'This paragraph stands for a reply of ordinary length, with some detail and a list of points. ';
function savedChat(i, now) {
  const topic = topics[i % topics.length];
  const entries = [];
  for (let turn = 0; turn < 4; turn++) {
    entries.push({ user: { text: `Question ${i}.${turn} about ${topic.toLowerCase()}?` } });
    entries.push({ model: { doc: `${filler.repeat(8)}On ${topic}: point ${turn}.`, thoughts: '' } });
  }
  if (i === 777) entries.push({ model: { doc: 'The needle word is quixotic.', thoughts: '' } });
  return { id: `c${i}`, title: `${topic} ${i}`, created_ms: now - i * 1000, updated_ms: now - i * 1000, history: [], entries };
}

const browser = await launch();
try {
  const page = await browser.context.newPage();
  await page.goto(browser.url('sidepanel.html'));
  const now = Date.now();
  const chats = Array.from({ length: CHATS }, (_, i) => savedChat(i, now));
  const items = {
    settings: { version: 6, gemini: { api_key: 'AIza-bench', model: 'gemini-3.8-flash' }, servers: [] },
    chats: JSON.stringify(chats.map((c) => ({ id: c.id, title: c.title, updated_ms: c.updated_ms }))),
  };
  for (const c of chats) items[`chat:${c.id}`] = JSON.stringify(c);
  await page.evaluate((items) => chrome.storage.local.set(items), items);
  await page.reload();
  await page.getByTestId('worker-status').and(page.locator('[data-state="ok"]')).waitFor();
  await page.bringToFront();

  // The same keystroke, in the element given by `selector`, timed to the next paint.
  const typeInto = (selector, texts) => page.evaluate(async ({ selector, texts }) => {
    const input = document.querySelector(selector);
    input.focus();
    const times = [];
    for (const text of texts) {
      input.value = '';
      input.dispatchEvent(new InputEvent('input', { bubbles: true }));
      await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
      for (const key of text) {
        const started = performance.now();
        input.dispatchEvent(new KeyboardEvent('keydown', { key, bubbles: true }));
        input.value += key;
        input.dispatchEvent(new InputEvent('input', { data: key, inputType: 'insertText', bubbles: true }));
        // Painted: the frame after the one that rendered the change.
        await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
        times.push(performance.now() - started);
      }
    }
    input.value = '';
    input.dispatchEvent(new InputEvent('input', { bubbles: true }));
    return times;
  }, { selector, texts });

  const composerTexts = [];
  for (let n = 0; n < KEYS; n += 12) composerTexts.push('a'.repeat(12));
  const empty = await typeInto('[data-testid="input"]', composerTexts);

  await page.getByTestId('history').click();
  await page.getByTestId('chat-search').waitFor();
  // The chats' text is read: a word only in one reply finds its chat.
  await page.getByTestId('chat-search').fill('quixotic');
  await page.getByTestId('search-count').filter({ hasText: '1 of 1000' }).waitFor({ timeout: 60_000 });
  await page.getByTestId('chat-search').fill('');

  const texts = Array.from({ length: ROUNDS }, () => QUERIES).flat();
  const search = await typeInto('[data-testid="chat-search"]', texts);
  const [emptyP95, searchP95] = [p(empty, 0.95), p(search, 0.95)];
  // GEMIPANEL_BENCH_DEBUG=1: the twenty slowest keystrokes, with the query they made.
  if (process.env.GEMIPANEL_BENCH_DEBUG) {
    const keys = texts.flatMap((t) => [...t].map((k, i) => `${t.slice(0, i + 1)}`));
    console.log(search.map((ms, i) => [ms, keys[i]]).sort((a, b) => b[0] - a[0]).slice(0, 20));
  }
  console.log(`history search: ${search.length} keystrokes over ${CHATS} saved chats, ${empty.length} in an empty composer`);
  console.log(`history_search_p95_ms=${searchP95.toFixed(1)}`);
  console.log(`history_search_p50_ms=${p(search, 0.5).toFixed(1)}`);
  console.log(`history_search_composer_p95_ms=${emptyP95.toFixed(1)}`);
  console.log(`history_search_ratio=${(searchP95 / emptyP95).toFixed(2)}`);
} finally {
  await browser.close();
}
