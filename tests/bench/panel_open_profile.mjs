// Where a side panel open goes (issue 24): the marks of the panel's scripts and of the worker,
// on the page's clock, median over opens with the worker stopped before each. By default each
// open starts a new renderer, as in `cargo xtask bench` (panel_open.mjs) and as when a person
// opens the panel after the extension went idle; `--warm` keeps the renderer between opens.
// `--trace` adds what each thread compiled lazily (first calls of wasm functions) and the
// longest tasks of the panel's main thread; tracing slows both down, so its opens are slower.
// A developer's tool:
//
//   cargo xtask dist && GEMIPANEL_EXTENSION_ID=kllodkfcinihfdkamgbfclpklodomgdp \
//     node tests/bench/panel_open_profile.mjs [--opens 10] [--warm] [--trace]
import { parseArgs } from 'node:util';
import { launch, serviceWorker, stopServiceWorkers } from '../e2e/harness.mjs';
import { SETTINGS, readyAt, watchReady } from './panel_ready.mjs';

const { values: options } = parseArgs({ options: {
  opens: { type: 'string', default: '10' },
  warm: { type: 'boolean', default: false },
  trace: { type: 'boolean', default: false },
} });
const OPENS = Number(options.opens);
// A page of another site ends the extension's renderer once its worker is stopped too.
const BETWEEN = options.warm ? 'about:blank' : 'data:text/html,between';
const TRACE_CATEGORIES = ['devtools.timeline', 'v8', 'v8.wasm', 'disabled-by-default-v8.wasm.detailed', 'toplevel', 'blink', 'loading'];

const browser = await launch();
try {
  await watchReady(browser.context);
  const page = await browser.context.newPage();
  await page.goto(browser.url('sidepanel.html'));
  await page.evaluate((settings) => chrome.storage.local.set({ settings }), SETTINGS);

  const rows = [];
  const lazy = { page: [], worker: [] };
  const tasks = [];
  for (let n = 0; n <= OPENS; n++) {
    await page.goto(BETWEEN);
    await stopServiceWorkers(page);
    await new Promise((r) => setTimeout(r, 100));
    const cdp = options.trace ? await browser.context.newCDPSession(page) : null;
    const events = [];
    if (cdp) {
      cdp.on('Tracing.dataCollected', ({ value }) => events.push(...value));
      await cdp.send('Tracing.start', { traceConfig: { includedCategories: TRACE_CATEGORIES } });
    }
    await page.goto(browser.url('sidepanel.html'), { waitUntil: 'commit' });
    await readyAt(page);
    const seen = await page.evaluate(() => ({
      origin: performance.timeOrigin,
      marks: performance.getEntriesByType('mark').map((m) => [m.name, m.startTime]),
      navigation: (({ responseEnd, domInteractive, domContentLoadedEventEnd }) =>
        ({ responseEnd, domInteractive, domContentLoadedEventEnd }))(performance.getEntriesByType('navigation')[0]),
    }));
    const worker = await (await serviceWorker(browser.context)).evaluate(() => ({
      origin: performance.timeOrigin,
      marks: performance.getEntriesByType('mark').map((m) => [m.name, m.startTime]),
    }));
    if (cdp) {
      const complete = new Promise((r) => cdp.once('Tracing.tracingComplete', r));
      await cdp.send('Tracing.end');
      await complete;
      await cdp.detach();
    }
    if (n === 0) continue; // the first open after setting up warms the browser's caches
    const row = { ...seen.navigation, 'worker: started': worker.origin - seen.origin };
    for (const [name, at] of seen.marks) row[name] = at;
    for (const [name, at] of worker.marks) row[`worker: ${name}`] = at + worker.origin - seen.origin;
    rows.push(row);
    if (cdp) {
      const compiled = lazyCompiles(events);
      lazy.page.push(compiled.page);
      lazy.worker.push(compiled.worker);
      tasks.push(...longTasks(events, seen.navigation.domContentLoadedEventEnd));
    }
  }

  console.log(`${OPENS} opens, ${options.warm ? 'the renderer kept' : 'a new renderer each'}; ms since navigation (median):`);
  const names = [...new Set(rows.flatMap(Object.keys))].sort((a, b) => median(rows, a) - median(rows, b));
  for (const name of names) console.log(`  ${median(rows, name).toFixed(1).padStart(7)}  ${name}`);
  if (options.trace) {
    console.log('\ncompiled lazily (median per open): functions, KB of code, ms');
    for (const [thread, list] of Object.entries(lazy)) {
      const of = (field) => medianOf(list.map((entry) => entry[field]));
      console.log(`  ${thread.padEnd(7)} ${String(of('count')).padStart(5)} ${(of('bytes') / 1024).toFixed(1).padStart(7)} ${of('ms').toFixed(1).padStart(6)}`);
    }
    console.log('\nthe panel\'s longest tasks over all opens: ms, at ms since navigation, inside');
    for (const task of tasks.sort((a, b) => b.ms - a.ms).slice(0, 15)) {
      console.log(`  ${task.ms.toFixed(1).padStart(6)} ${task.at.toFixed(0).padStart(5)}  ${task.what}`);
    }
  }
} finally {
  await browser.close();
}

function medianOf(list) {
  const sorted = [...list].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? NaN;
}

function median(rows, name) {
  return medianOf(rows.map((row) => row[name]).filter((value) => value !== undefined));
}

/** The thread of each trace event: the side panel's main thread, the worker's, or another. */
function threads(events) {
  const names = new Map();
  for (const e of events) {
    if (e.ph === 'M' && e.name === 'thread_name') names.set(`${e.pid}:${e.tid}`, e.args.name);
  }
  const panelPid = events.find((e) => e.name === 'MarkDOMContent')?.pid;
  return (e) => {
    const name = names.get(`${e.pid}:${e.tid}`);
    if (e.pid === panelPid && name === 'CrRendererMain') return 'page';
    if (name === 'ServiceWorker thread') return 'worker';
    return null;
  };
}

function lazyCompiles(events) {
  const threadOf = threads(events);
  const totals = { page: { count: 0, bytes: 0, ms: 0 }, worker: { count: 0, bytes: 0, ms: 0 } };
  for (const e of events) {
    const thread = e.name === 'wasm.CompileLazy' ? threadOf(e) : null;
    if (!thread) continue;
    totals[thread].count += 1;
    totals[thread].ms += e.dur / 1000;
  }
  for (const e of events) {
    const thread = e.name === 'wasm.CompileBaseline' ? threadOf(e) : null;
    if (thread) totals[thread].bytes += e.args?.bodySize ?? 0;
  }
  return totals;
}

/** The panel main thread's tasks of 3 ms or more: when they started (ms since navigation, placed
 * by the DOMContentLoaded mark) and their three longest kinds of work inside. */
function longTasks(events, domContentLoaded) {
  const threadOf = threads(events);
  const own = events.filter((e) => e.ph === 'X' && threadOf(e) === 'page');
  const dcl = events.find((e) => e.name === 'MarkDOMContent');
  const navigation = dcl ? dcl.ts - domContentLoaded * 1000 : 0;
  const wrappers = new Set(['ThreadControllerImpl::RunTask', 'Receive mojo message',
    'SimpleWatcher::OnHandleReady', 'TimerBase::run', 'RunMicrotasks', 'FunctionCall', 'v8.callFunction']);
  const found = [];
  for (const task of own.filter((e) => e.name === 'ThreadControllerImpl::RunTask' && e.dur >= 3000)) {
    const end = task.ts + task.dur;
    const kinds = new Map();
    for (const e of own) {
      if (e.ts < task.ts || e.ts + e.dur > end || wrappers.has(e.name)) continue;
      const detail = e.args?.data?.url ?? e.args?.fileName ?? '';
      const kind = `${e.name}${detail ? ` ${String(detail).split('/').pop()}` : ''}`;
      kinds.set(kind, Math.max(kinds.get(kind) ?? 0, e.dur));
    }
    const what = [...kinds].sort((a, b) => b[1] - a[1]).slice(0, 3)
      .map(([kind, us]) => `${kind} ${(us / 1000).toFixed(1)}`).join(' · ');
    found.push({ ms: task.dur / 1000, at: (task.ts - navigation) / 1000, what });
  }
  return found;
}
