// Benchmark: the page reader on a corpus no one here wrote, the 181 saved pages of
// scrapinghub/article-extraction-benchmark (MIT; `cargo xtask bench` unpacks a pinned commit
// into GEMIPANEL_ARTICLE_PAGES and scores what this writes with that repository's metric).
//
// Each page is served on 127.0.0.1 with scripts off (the corpus was saved with JavaScript
// disabled) and shown in a tab; the side panel page then reads it exactly as the extension
// does: browser/js/page.js's readPage (Readability injected into the tab, then the walk of its
// article), imported from the built extension. Writes GEMIPANEL_ARTICLE_OUT: {id: PageRead}
// for core to render, and prints `read_page_ms=` (median of 5 reads of the largest page).
import http from 'node:http';
import { readFileSync, readdirSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { launch, dist } from '../e2e/harness.mjs';

const corpus = process.env.GEMIPANEL_ARTICLE_PAGES;
const out = process.env.GEMIPANEL_ARTICLE_OUT;
if (!corpus || !out) throw new Error('GEMIPANEL_ARTICLE_PAGES and GEMIPANEL_ARTICLE_OUT are set by cargo xtask bench');
const truth = JSON.parse(readFileSync(join(corpus, 'ground-truth.json'), 'utf8'));
const ids = Object.keys(truth).sort();
const html = new Map(ids.map((id) => [id, gunzipSync(readFileSync(join(corpus, 'html', `${id}.html.gz`)))]));

const server = http.createServer((req, res) => {
  const body = html.get(req.url.slice(1));
  if (!body) return res.writeHead(404).end();
  // The corpus was saved with scripts off; keep them off (the extension's own scripts are not
  // subject to a page's policy).
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': "script-src 'none'" }).end(body);
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const origin = `http://127.0.0.1:${server.address().port}`;

// Only this computer answers: a page's images and styles elsewhere fail at once.
const browser = await launch({ args: ['--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1'] });
try {
  const snippets = join(dist, 'wasm', 'snippets');
  const dir = readdirSync(snippets).find((d) => existsSync(join(snippets, d, 'js', 'page.js')));
  if (!dir) throw new Error('the built extension has no page.js snippet');
  const module = browser.url(`wasm/snippets/${dir}/js/page.js`);
  const panel = await browser.context.newPage();
  await panel.goto(browser.url('sidepanel.html'));
  const tab = await browser.context.newPage();
  const read = () => panel.evaluate(async (path) => {
    const { readPage } = await import(path);
    const started = performance.now();
    const answer = await readPage(null, 1_000_000);
    return { answer, ms: performance.now() - started };
  }, module);

  const extracted = {};
  let failures = 0;
  for (const id of ids) {
    await tab.goto(`${origin}/${id}`, { waitUntil: 'load', timeout: 30_000 }).catch(() => {});
    await tab.bringToFront();
    const { answer } = await read();
    const parsed = JSON.parse(answer);
    if (!parsed.ok) {
      failures += 1;
      console.error(`${id}: ${parsed.error}`);
    }
    extracted[id] = parsed.read ?? { url: `${origin}/${id}`, blocks: [] };
  }
  writeFileSync(out, JSON.stringify(extracted));

  const largest = ids.reduce((a, b) => (html.get(a).length >= html.get(b).length ? a : b));
  await tab.goto(`${origin}/${largest}`, { waitUntil: 'load' });
  await tab.bringToFront();
  const times = [];
  for (let i = 0; i < 6; i++) times.push((await read()).ms);
  times.shift(); // the first read injects Readability into the tab
  times.sort((a, b) => a - b);
  console.log(`pages read: ${ids.length}, failed: ${failures}; largest page ${largest} (${(html.get(largest).length / 1024).toFixed(0)} KB of HTML)`);
  console.log(`read_page_ms=${times[2].toFixed(0)}`);
  console.log(`read_page_first_ms=${(await (async () => { await tab.reload({ waitUntil: 'load' }); return (await read()).ms; })()).toFixed(0)}`);
} finally {
  await browser.close();
  server.close();
}
