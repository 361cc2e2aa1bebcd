// Where a cold start of the worker goes: a CPU profile of the worker from its first instruction to
// its first answer, and a trace of the browser around it (worker start-up, script and wasm
// compilation, storage), over several wakes. A developer's tool, rerun after a change:
//
//   GEMIPANEL_DIST=dist GEMIPANEL_EXTENSION_ID=kllodkfcinihfdkamgbfclpklodomgdp \
//     node tests/bench/cold_start_profile.mjs [--wakes 10] [--trace] [--reference] [--save DIR]
//
// Each wake: every worker is stopped through CDP; the browser target auto-attaches to the worker
// as it starts, paused before its script runs (waitForDebuggerOnStart), the Profiler starts
// there, the worker runs, and a page of the extension without a port of its own (so nothing but
// the request wakes the worker) sends `get_settings`. The pause and the profiler add their own
// time to the page's figure, so it is not the bench's; the split inside the worker is the point.
// `--reference` profiles the plain-JavaScript reference worker (tests/bench/js-worker) instead;
// `--trace` adds a browser trace (categories below), summarised by event; `--save DIR` writes the
// last profile (.cpuprofile, opens in DevTools' Performance panel) and trace (.json) there.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { launchOverPipe } from './cdp_pipe.mjs';

const { values: options } = parseArgs({ options: {
  wakes: { type: 'string', default: '10' },
  trace: { type: 'boolean', default: false },
  profile: { type: 'boolean' },
  reference: { type: 'boolean', default: false },
  names: { type: 'boolean', default: false },
  save: { type: 'string' },
  interval: { type: 'string', default: '50' }, // µs between samples
  'chrome-flag': { type: 'string', multiple: true, default: [] },
} });
const WAKES = Number(options.wakes);
// Tracing and sampling both slow the worker down; by default a traced run does not sample.
const PROFILE = options.profile ?? !options.trace;
const dist = options.names ? withNames(resolve(process.env.GEMIPANEL_DIST ?? 'dist'))
  : resolve(process.env.GEMIPANEL_DIST ?? 'dist');
const ours = process.env.GEMIPANEL_EXTENSION_ID;
if (!ours) throw new Error('GEMIPANEL_EXTENSION_ID is not set');
const referenceDir = resolve(import.meta.dirname, 'js-worker');
const OURS = new Set(['wasm', 'glue', 'background.js']);
const TRACE_CATEGORIES = [
  'v8', 'v8.wasm', 'disabled-by-default-v8.wasm.detailed', 'v8.compile', 'v8.execute',
  'devtools.timeline', 'ServiceWorker', 'extensions', 'toplevel', 'blink', 'loading', 'ipc',
  'mojom', 'disabled-by-default-devtools.timeline',
];

const cdp = await launchOverPipe({ extensions: [dist, referenceDir], args: options['chrome-flag'] });
try {
  await cdp.send('Target.setDiscoverTargets', { discover: true });
  const workerTarget = (info) => info.type === 'service_worker' && info.url.endsWith('/background.js');
  const started = new Map(); // extension id → target info, as workers appear
  const offStarted = cdp.on(({ method, params }) => {
    if (method === 'Target.targetCreated' && workerTarget(params.targetInfo)) {
      started.set(new URL(params.targetInfo.url).host, params.targetInfo);
    }
  });
  const deadline = Date.now() + 15_000;
  while (started.size < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  offStarted();
  const reference = [...started.keys()].find((id) => id !== ours);
  if (!started.has(ours) || !reference) throw new Error('both workers must start');
  const target = options.reference ? reference : ours;

  // A page without a port: any resource of the extension is an extension page.
  const open = async (extensionId) => {
    const { targetId } = await cdp.send('Target.createTarget', { url: `chrome-extension://${extensionId}/manifest.json` });
    const { sessionId } = await cdp.send('Target.attachToTarget', { targetId, flatten: true });
    await cdp.send('Runtime.enable', {}, sessionId);
    return sessionId;
  };
  const page = await open(target);
  await cdp.send('ServiceWorker.enable', {}, page);
  // The document of the bench (tests/bench/cold_start.mjs): a key, a model and five servers.
  await cdp.evaluate(page, `chrome.storage.local.set({ settings: ${target === ours ? `{
    version: 6, gemini: { api_key: 'AIza-bench', model: 'gemini-3.8-flash' },
    servers: Array.from({ length: 5 }, (_, i) => ({
      id: 'srv_' + String(i).padStart(16, '0'), name: 'server ' + i, url: 'https://mcp' + i + '.example.com/mcp',
      headers: { Authorization: 'Bearer x' }, timeout_ms: 30000, trust: false, exclude_tools: [],
      enabled_by_default: true, local_network: false, allowed_tools: [],
    })) }` : `{ version: 3, servers: [] }`} })`);

  // The worker's target outlives its stops: a session attached to it is carried over to the next
  // start, and a profiler started in it starts again with the new worker, before its script runs.
  const { targetInfos } = await cdp.send('Target.getTargets');
  const worker = targetInfos.find((info) => workerTarget(info) && new URL(info.url).host === target);
  const { sessionId: workerSession } = await cdp.send('Target.attachToTarget', { targetId: worker.targetId, flatten: true });
  if (PROFILE) {
    await cdp.send('Profiler.enable', {}, workerSession);
    await cdp.send('Profiler.setSamplingInterval', { interval: Number(options.interval) }, workerSession);
  }

  const profiles = [];
  const traces = [];
  const marks = [];
  for (let n = 0; n < WAKES + 1; n++) {
    if (PROFILE) await cdp.send('Profiler.start', {}, workerSession);
    const stopped = cdp.waitFor('ServiceWorker.workerVersionUpdated', ({ versions }) =>
      versions.some((v) => v.scriptURL.includes(target) && v.runningStatus === 'stopped'), { sessionId: page });
    await cdp.send('ServiceWorker.stopAllWorkers', {}, page);
    await stopped;
    await new Promise((r) => setTimeout(r, 100));
    const trace = [];
    if (options.trace) {
      const off = cdp.on(({ method, params }) => {
        if (method === 'Tracing.dataCollected') trace.push(...params.value);
        if (method === 'Tracing.tracingComplete') off();
      });
      await cdp.send('Tracing.start', { traceConfig: { includedCategories: TRACE_CATEGORIES }, transferMode: 'ReportEvents' });
    }
    const ms = await cdp.evaluate(page, `(async () => {
      const started = performance.now();
      const reply = await chrome.runtime.sendMessage({ id: 1, request: { type: 'get_settings' } });
      if (reply?.response?.type !== 'settings') throw new Error(JSON.stringify(reply));
      return performance.now() - started;
    })()`);
    const profile = PROFILE ? (await cdp.send('Profiler.stop', {}, workerSession)).profile : null;
    const workerMarks = await cdp.evaluate(workerSession, `Object.fromEntries(
      performance.getEntriesByType('mark').map((m) => [m.name, m.startTime]))`);
    if (options.trace) {
      const complete = cdp.waitFor('Tracing.tracingComplete');
      await cdp.send('Tracing.end');
      await complete;
    }
    if (n === 0) continue; // the first wake after setting up warms the browser's caches
    if (profile) profiles.push(profile);
    if (options.trace) traces.push(trace);
    marks.push({ page_ms: ms, ...workerMarks });
  }

  reportMarks(marks);
  if (PROFILE) reportProfiles(profiles);
  if (options.trace) reportTraces(traces);
  if (options.save) {
    mkdirSync(options.save, { recursive: true });
    if (PROFILE) writeFileSync(join(options.save, 'worker.cpuprofile'), JSON.stringify(profiles.at(-1)));
    if (options.trace) writeFileSync(join(options.save, 'trace.json'), JSON.stringify({ traceEvents: traces.at(-1) }));
    console.log(`saved to ${options.save}`);
  }
} finally {
  await cdp.close();
  if (options.names) rmSync(dist, { recursive: true, force: true });
}

// A copy of dist/ whose worker module keeps its function names (dist/ strips them): made again
// from the release build the same way as `cargo xtask dist` makes it, with wasm-opt's -g.
function withNames(built) {
  const copy = mkdtempSync(join(tmpdir(), 'gemipanel-named-'));
  cpSync(built, copy, { recursive: true });
  const root = resolve(import.meta.dirname, '../..');
  const target = resolve(root, process.env.CARGO_TARGET_DIR ?? 'target');
  const wasm = join(target, 'wasm32-unknown-unknown/release/gemipanel_background.wasm');
  const out = join(copy, 'wasm');
  execFileSync('wasm-bindgen', ['--target', 'web', '--no-typescript', '--out-name', 'background', '--out-dir', out, wasm]);
  const module = join(out, 'background_bg.wasm');
  execFileSync(join(root, 'tests/node_modules/.bin/wasm-opt'), ['-Oz', '--low-memory-unused', '-g', module, '-o', module]);
  return copy;
}

function median(list) {
  const sorted = [...list].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? NaN;
}

// Where a frame belongs: the wasm, its wasm-bindgen glue, background.js, or the engine.
function kind(frame) {
  const { url, functionName } = frame;
  if (url.endsWith('.wasm') || url.startsWith('wasm://')) return 'wasm';
  if (url.endsWith('/wasm/background.js')) return 'glue';
  if (url.endsWith('/background.js')) return 'background.js';
  return functionName || '(anonymous)';
}

function reportMarks(marks) {
  const how = [PROFILE && `sampled every ${options.interval} µs`, options.trace && 'traced'].filter(Boolean).join(', ');
  console.log(`worker ${options.reference ? 'reference' : 'gemipanel'}: ${marks.length} wakes, ${how}`);
  console.log('\nmarks (ms since the worker\'s time origin; page_ms: the page\'s wait, with the tools\' overhead), median:');
  for (const key of Object.keys(marks[0] ?? {})) {
    console.log(`  ${key.padEnd(28)} ${median(marks.map((m) => m[key])).toFixed(2)}`);
  }
}

function reportProfiles(profiles) {
  // Self time by function, and by where it runs: a sample in the engine's own code (a builtin,
  // the garbage collector, a lazy compile) counts for the nearest frame of ours above it.
  const selfByFunction = new Map();
  const selfByKind = new Map();
  const spans = [];
  const timelines = [];
  for (const profile of profiles) {
    const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
    const parents = new Map();
    for (const node of profile.nodes) for (const child of node.children ?? []) parents.set(child, node.id);
    let t = profile.startTime;
    const perFunction = new Map();
    const perKind = new Map();
    let first = null;
    let last = null;
    const timeline = [];
    profile.samples.forEach((id, i) => {
      t += profile.timeDeltas[i];
      const dt = (profile.timeDeltas[i + 1] ?? 0) / 1000; // a sample stands for the time to the next
      const frame = nodes.get(id).callFrame;
      const name = ['(idle)', '(program)', '(garbage collector)'].includes(frame.functionName)
        ? frame.functionName : `${frame.functionName || '(anonymous)'} [${kind(frame)}]`;
      perFunction.set(name, (perFunction.get(name) ?? 0) + dt);
      let where = kind(frame);
      if (!OURS.has(where)) {
        for (let at = parents.get(id); at !== undefined; at = parents.get(at)) {
          const k = kind(nodes.get(at).callFrame);
          if (OURS.has(k)) { where = `${where} in ${k}`; break; }
        }
      }
      perKind.set(where, (perKind.get(where) ?? 0) + dt);
      if (frame.functionName !== '(idle)') {
        first ??= t;
        last = t;
      }
      timeline.push({ t: (t - profile.startTime) / 1000, name });
    });
    for (const [k, v] of perFunction) selfByFunction.set(k, [...(selfByFunction.get(k) ?? []), v]);
    for (const [k, v] of perKind) selfByKind.set(k, [...(selfByKind.get(k) ?? []), v]);
    spans.push(first === null ? 0 : (last - first) / 1000);
    timelines.push(timeline);
  }
  const medianOf = (map) => [...map]
    .map(([k, v]) => [k, median([...v, ...Array(profiles.length - v.length).fill(0)])])
    .sort((a, b) => b[1] - a[1]);
  console.log(`\nfrom the first to the last sample that is not idle: ${median(spans).toFixed(2)} ms (median)`);
  console.log('\nself time by where it runs (ms, median; "X in Y": engine code X called from Y):');
  for (const [k, v] of medianOf(selfByKind)) if (v >= 0.05) console.log(`  ${v.toFixed(2).padStart(7)}  ${k}`);
  console.log('\nself time by function (ms, median, top 40):');
  for (const [k, v] of medianOf(selfByFunction).slice(0, 40)) console.log(`  ${v.toFixed(2).padStart(7)}  ${k}`);
  // The last wake as a strip: the most frequent function of each half millisecond.
  console.log('\nthe last wake, 0.5 ms a row (ms since the profile started; idle rows left out):');
  const rows = new Map();
  for (const { t, name } of timelines.at(-1) ?? []) {
    const row = Math.floor(t * 2);
    const counts = rows.get(row) ?? new Map();
    counts.set(name, (counts.get(name) ?? 0) + 1);
    rows.set(row, counts);
  }
  for (const [row, counts] of [...rows].sort((a, b) => a[0] - b[0])) {
    const ranked = [...counts].filter(([name]) => name !== '(idle)').sort((a, b) => b[1] - a[1]);
    if (!ranked.length) continue;
    const shown = ranked.slice(0, 3).map(([name]) => name.replace(/ \[(chrome-extension|wasm):.*\]$/, '')).join(' · ');
    console.log(`  ${(row / 2).toFixed(1).padStart(6)}  ${shown}`);
  }
}

// The traced wakes: the worker thread's events and V8's wasm events (any thread), each name's total
// per wake (median), and when it first happened after the browser started the worker.
function reportTraces(traces) {
  const perWake = [];
  const lazy = new Map(); // function index → { bytes, ms: [per wake] }: compiled on the worker's thread
  for (const events of traces) {
    const threads = new Map();
    for (const e of events) {
      if (e.ph === 'M' && e.name === 'thread_name') threads.set(`${e.pid}:${e.tid}`, e.args.name);
    }
    const start = events.find((e) => e.name === 'EmbeddedWorkerInstance::Start')?.ts
      ?? Math.min(...events.filter((e) => e.ts).map((e) => e.ts));
    // The worker's thread: the one that evaluates its script.
    const evaluate = events.find((e) => (e.name === 'v8.evaluateModule' || e.name === 'EvaluateScript')
      && threads.get(`${e.pid}:${e.tid}`) === 'ServiceWorker thread');
    const workerThread = evaluate && `${evaluate.pid}:${evaluate.tid}`;
    const totals = new Map();
    for (const e of events) {
      if (e.ph !== 'X') continue;
      const thread = `${e.pid}:${e.tid}`;
      const wasm = e.cat.includes('wasm');
      if (thread !== workerThread && !wasm) continue;
      const where = thread === workerThread ? 'worker' : (threads.get(thread) ?? thread).replace(/\d+$/, '');
      const key = `${where}: ${e.name}`;
      const entry = totals.get(key) ?? { total: 0, count: 0, first: Infinity };
      entry.total += (e.dur ?? 0) / 1000;
      entry.count += 1;
      entry.first = Math.min(entry.first, (e.ts - start) / 1000);
      totals.set(key, entry);
    }
    perWake.push(totals);
    for (const e of events) {
      if (e.name !== 'wasm.CompileBaseline' || `${e.pid}:${e.tid}` !== workerThread) continue;
      const entry = lazy.get(e.args.funcIndex) ?? { bytes: e.args.bodySize, ms: [] };
      entry.ms.push(e.dur / 1000);
      lazy.set(e.args.funcIndex, entry);
    }
  }
  const keys = new Set(perWake.flatMap((t) => [...t.keys()]));
  const rows = [...keys].map((key) => {
    const of = (field) => median(perWake.map((t) => t.get(key)?.[field] ?? 0));
    return { key, total: of('total'), count: of('count'), first: median(perWake.map((t) => t.get(key)?.first ?? Infinity)) };
  }).filter((r) => r.total >= 0.1).sort((a, b) => a.first - b.first);
  console.log('\ntrace, per wake (median): first start after EmbeddedWorkerInstance::Start, total ms, count');
  for (const r of rows) {
    console.log(`  +${r.first.toFixed(2).padStart(7)}  ${r.total.toFixed(2).padStart(7)} ms ×${String(r.count).padEnd(4)} ${r.key}`);
  }
  // What the worker compiled on its own thread (lazily, on a first call), biggest first.
  const names = functionNames(join(dist, 'wasm/background_bg.wasm'));
  const compiled = [...lazy].map(([index, { bytes, ms }]) => ({ index, bytes, ms: median(ms) }))
    .sort((a, b) => b.ms - a.ms);
  const bytes = compiled.reduce((sum, f) => sum + f.bytes, 0);
  const ms = compiled.reduce((sum, f) => sum + f.ms, 0);
  console.log(`\ncompiled on the worker's thread: ${compiled.length} functions, ${(bytes / 1024).toFixed(1)} KB of code, ${ms.toFixed(2)} ms of Liftoff (median per function, summed); the 25 longest:`);
  for (const f of compiled.slice(0, 25)) {
    console.log(`  ${f.ms.toFixed(2).padStart(6)} ms ${String(f.bytes).padStart(6)} B  ${names.get(f.index) ?? `#${f.index}`}`);
  }
}

// Function names from a module's "name" section (only in a module built with --names).
function functionNames(path) {
  const names = new Map();
  const bytes = readFileSync(path);
  let at = 8;
  const leb = () => {
    let value = 0;
    let shift = 0;
    let byte;
    do { byte = bytes[at++]; value += (byte & 0x7f) * 2 ** shift; shift += 7; } while (byte & 0x80);
    return value;
  };
  const text = () => { const length = leb(); const s = bytes.toString('utf8', at, at + length); at += length; return s; };
  while (at < bytes.length) {
    const id = bytes[at++];
    const size = leb();
    const end = at + size;
    if (id === 0 && text() === 'name') {
      while (at < end) {
        const sub = bytes[at++];
        const subEnd = leb() + at;
        if (sub === 1) {
          for (let count = leb(); count > 0; count--) { const index = leb(); names.set(index, text()); }
        }
        at = subEnd;
      }
    }
    at = end;
  }
  return names;
}
