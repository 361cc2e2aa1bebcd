// Benchmark (issue 25): the `@` menu must not slow typing. One server lists 10,000 resources in
// pages of 100, each page answered after 20 ms (tests/fixtures/mcp/many_resources.mjs). The
// composer's input-to-paint is measured while typing in an empty composer, then while typing
// after `@` an animal's name that few resources carry, so that every key ranks all the
// resources arrived so far and the menu keeps asking for pages as the keys go (the name typed
// and erased in turn). Prints both p95s, `mention_menu_input_ratio=` (goal ≤ 1.5), how many
// keys were typed while pages were still arriving, and how many entries the menu showed last.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { launch } from '../e2e/harness.mjs';
import { startFakeGemini } from '../fixtures/fake-gemini/server.mjs';

// Ends with the name typed in full (typed and erased in turns of ten keys).
const KEYS = 115;
const RESOURCES = 10_000;
const API_KEY = 'bench-key';
const testsDir = fileURLToPath(new URL('..', import.meta.url));
const p = (xs, q) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * q))];

const child = spawn(process.execPath, ['fixtures/mcp/many_resources.mjs', String(RESOURCES), '100', '20'], {
  cwd: testsDir, stdio: ['ignore', 'pipe', 'inherit'],
});
const port = await new Promise((resolve, reject) => {
  let seen = '';
  child.stdout.on('data', (d) => {
    seen += d;
    const found = seen.match(/gemipanel-many-resources: (\d+)/);
    if (found) resolve(Number(found[1]));
  });
  child.once('exit', (code) => reject(new Error(`many_resources.mjs exited with ${code}`)));
});
const fake = await startFakeGemini({ apiKey: API_KEY });
const browser = await launch();
try {
  const page = await browser.context.newPage();
  await page.goto(browser.url('sidepanel.html'));
  await page.getByTestId('worker-status').and(page.locator('[data-state="ok"]')).waitFor();
  await page.evaluate(({ key, base }) => chrome.storage.local.set({
    settings: { version: 6, gemini: { api_key: key, base_url: base }, servers: [] },
  }), { key: API_KEY, base: fake.url });
  const reply = await page.evaluate((m) => chrome.runtime.sendMessage(m), {
    id: 1,
    request: {
      type: 'edit_settings',
      edit: { type: 'add_server', id: 'srv_0000000000000001', server: { name: 'many', url: `http://127.0.0.1:${port}/mcp`, trust: true } },
    },
  });
  if (reply?.response?.type !== 'settings') throw new Error(JSON.stringify(reply));
  await page.reload();
  await page.getByTestId('worker-status').and(page.locator('[data-state="ok"]')).waitFor();
  await page.bringToFront();

  // Each key as the browser delivers it, timed to the frame after the one that rendered it.
  // `word` is typed and erased in turn; returns each key's time and whether the menu still
  // said that pages were on their way when it was pressed.
  const typing = (word, prefix) => page.evaluate(async ({ keys, word, prefix }) => {
    const input = document.querySelector('[data-testid="input"]');
    input.focus();
    input.value = prefix;
    input.dispatchEvent(new InputEvent('input', { data: prefix, inputType: 'insertText', bubbles: true }));
    await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
    const times = [];
    let arriving = 0;
    for (let i = 0; i < keys; i++) {
      // Pages on their way: said under the entries, or instead of them while none match.
      const footer = document.querySelector('[data-testid="mention-footer"]');
      const empty = document.querySelector('.slash-empty');
      if ((footer && /loading/i.test(footer.textContent)) || (empty && /Asking/.test(empty.textContent))) arriving += 1;
      const at = i % (2 * word.length);
      const adding = at < word.length;
      const key = adding ? word[at] : 'Backspace';
      const started = performance.now();
      input.dispatchEvent(new KeyboardEvent('keydown', { key, bubbles: true }));
      input.value = adding ? input.value + key : input.value.slice(0, -1);
      input.dispatchEvent(new InputEvent('input', {
        data: adding ? key : null, inputType: adding ? 'insertText' : 'deleteContentBackward', bubbles: true,
      }));
      await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
      times.push(performance.now() - started);
    }
    const shown = document.querySelectorAll('[data-testid="mention-item"]').length;
    input.value = '';
    input.dispatchEvent(new InputEvent('input', { bubbles: true }));
    return { times, arriving, shown };
  }, { keys: KEYS, word, prefix });

  const empty = await typing('zebra', '');
  const menu = await typing('zebra', '@');
  const [emptyP95, menuP95] = [p(empty.times, 0.95), p(menu.times, 0.95)];
  console.log(`mention menu: ${KEYS} keys in an empty composer and after @ over ${RESOURCES} paged resources`);
  console.log(`mention_menu_p95_empty_ms=${emptyP95.toFixed(1)}`);
  console.log(`mention_menu_p95_filtering_ms=${menuP95.toFixed(1)}`);
  console.log(`mention_menu_keys_while_pages_arrive=${menu.arriving}`);
  // With the last key the name was typed in full: four of the 10,000 carry it.
  console.log(`mention_menu_matches_at_end=${menu.shown}`);
  console.log(`mention_menu_input_ratio=${(menuP95 / emptyP95).toFixed(2)}`);
} finally {
  await browser.close();
  await fake.close();
  child.kill();
}
