// Benchmark: p50 latency of sequential `echo` calls against server-everything from two MCP
// clients in the same page of the same browser and origin: the extension's wasm client (core's
// Client over the browser's FetchTransport, the code the worker runs, built for a page by
// tests/bench/client) and the official TypeScript SDK client. Their ratio is the comparison of
// the clients. Beside it, the side panel's whole path (page → worker → server over the fast
// lane, and over the runtime port alone), which adds the page-to-worker hop the design needs,
// and that hop alone (the worker's round trip for a status request). Prints `name=value` figures.
//
// Fairness: one server process serves both clients; both are connected and warmed up first;
// then blocks of calls alternate between the two (the order flips every round), so a busy
// moment of the machine hits both alike. The whole comparison runs REPEATS times; the figures
// are those of the median pass, with the spread of the ratio over all passes.
//
// The SDK client is bundled with esbuild into a copy of dist/ with one extra page, so all of
// them run under the same extension origin and host permissions. That copy's pages are
// cross-origin isolated, which gives performance.now() 5 µs steps instead of 100 µs: at about
// 5 ms a call, a 100 µs step is a 2 % step in every p50 and ratio.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const esbuild = require('esbuild');
const CALLS = Number(process.env.GEMIPANEL_BENCH_CALLS ?? 500);
const REPEATS = Number(process.env.GEMIPANEL_BENCH_REPEATS ?? 3);
const WARMUP = 50;
const BLOCK = Number(process.env.GEMIPANEL_BENCH_BLOCK ?? 1);

const benchDist = mkdtempSync(join(tmpdir(), 'gemipanel-bench-dist-'));
cpSync(resolve(process.env.GEMIPANEL_DIST ?? 'dist'), benchDist, { recursive: true });
await esbuild.build({
  stdin: {
    contents: `
      import { Client } from '@modelcontextprotocol/sdk/client/index.js';
      import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
      globalThis.McpSdk = { Client, StreamableHTTPClientTransport };`,
    resolveDir: resolve(import.meta.dirname, '..'),
  },
  bundle: true,
  format: 'iife',
  platform: 'browser',
  minify: true,
  outfile: join(benchDist, 'bench-sdk.js'),
  logLevel: 'warning',
});
const benchClient = process.env.GEMIPANEL_BENCH_CLIENT;
if (!benchClient) throw new Error('GEMIPANEL_BENCH_CLIENT is not set (run through cargo xtask bench)');
cpSync(benchClient, join(benchDist, 'bench-client'), { recursive: true });
writeFileSync(join(benchDist, 'bench-client.js'), `
  import init, { BenchClient } from './bench-client/bench_client.js';
  globalThis.wasmClientReady = init({ module_or_path: new URL('./bench-client/bench_client_bg.wasm', import.meta.url) })
    .then(() => BenchClient);`);
writeFileSync(join(benchDist, 'bench.html'), '<!doctype html><meta charset="utf-8"><title>bench</title>'
  + '<script src="bench-sdk.js"></script><script type="module" src="bench-client.js"></script>');
const manifest = JSON.parse(readFileSync(join(benchDist, 'manifest.json'), 'utf8'));
manifest.cross_origin_embedder_policy = { value: 'require-corp' };
manifest.cross_origin_opener_policy = { value: 'same-origin' };
writeFileSync(join(benchDist, 'manifest.json'), JSON.stringify(manifest, null, 2));
process.env.GEMIPANEL_DIST = benchDist;

const { launch } = await import('../e2e/harness.mjs');
const { installLane } = await import('./lane.mjs');
const { startEverything } = await import('../e2e/servers.mjs');

const p50 = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const everything = await startEverything();
const browser = await launch();
try {
  const page = await browser.context.newPage();
  await page.goto(browser.url('bench.html'));
  const added = await page.evaluate((url) => chrome.runtime.sendMessage({
    id: 1,
    request: { type: 'edit_settings', edit: { type: 'add_server', id: 'srv_bench000000000', server: { name: 'bench', url } } },
  }), everything.url);
  if (added?.response?.type !== 'settings') throw new Error(`adding the server failed: ${JSON.stringify(added)}`);

  // Both clients, connected once. The wasm client is reached the way the side panel's
  // WorkerPort (browser/src/port.rs) reaches it: a runtime port named `<name>#<token>` plus the
  // fast lane (browser/src/channel.rs) that the worker pairs with it; requests and replies go on
  // the lane as JSON text.
  await page.evaluate(installLane);
  await page.evaluate(async (url) => {
    const request = globalThis.laneRequest;
    let id = 10;
    const waiting = new Map();
    const onReply = (m) => { if (m?.kind === 'response') waiting.get(m.id)?.(m.response); };
    globalThis.lanePathCall = async (text) => {
      const response = await request({ type: 'call_tool', call_id: `c${id++}`,
        server_id: 'srv_bench000000000', tool: 'echo', arguments: { message: text } });
      if (response.type !== 'tool_result') throw new Error(JSON.stringify(response));
    };
    // The same path over the runtime port alone, as pages without the lane (and the tests) use
    // it: shows what the lane saves.
    const plain = chrome.runtime.connect({ name: 'bench-port' });
    plain.onMessage.addListener(onReply);
    globalThis.portPathCall = (text) => new Promise((resolve, reject) => {
      const mine = id++;
      waiting.set(mine, (r) => (r.type === 'tool_result' ? resolve() : reject(new Error(JSON.stringify(r)))));
      plain.postMessage({ id: mine, request: { type: 'call_tool', call_id: `c${mine}`,
        server_id: 'srv_bench000000000', tool: 'echo', arguments: { message: text } } });
    });
    globalThis.workerStatus = async () => {
      const response = await request({ type: 'status' });
      if (response.type !== 'status') throw new Error(JSON.stringify(response));
    };

    const { Client, StreamableHTTPClientTransport } = globalThis.McpSdk;
    const client = new Client({ name: 'bench', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    globalThis.sdkCall = (text) => client.callTool({ name: 'echo', arguments: { message: text } });

    const wasmClient = await (await globalThis.wasmClientReady).connect(url);
    globalThis.wasmCall = (text) => wasmClient.echo(text);
    if (!crossOriginIsolated) throw new Error('the bench page is not cross-origin isolated (coarse timers)');

    globalThis.timeBlock = async (name, n) => {
      const call = globalThis[name];
      const times = [];
      for (let i = 0; i < n; i++) {
        const start = performance.now();
        await call(`hello ${i}`);
        times.push(performance.now() - start);
      }
      return times;
    };
  }, everything.url);

  const block = (name, n) => page.evaluate(([name, n]) => globalThis.timeBlock(name, n), [name, n]);
  const clients = ['wasmCall', 'sdkCall', 'lanePathCall', 'portPathCall'];
  for (const name of clients) await block(name, WARMUP);

  const passes = [];
  for (let pass = 0; pass < REPEATS; pass++) {
    const times = Object.fromEntries(clients.map((name) => [name, []]));
    for (let round = 0; times.wasmCall.length < CALLS; round++) {
      const order = round % 2 ? [...clients].reverse() : clients;
      for (const name of order) times[name].push(...await block(name, Math.min(BLOCK, CALLS - times[name].length)));
    }
    const f = Object.fromEntries(clients.map((name) => [name, p50(times[name])]));
    f.status = p50(await block('workerStatus', 100));
    f.ratio = f.wasmCall / f.sdkCall;
    f.pathRatio = f.lanePathCall / f.sdkCall;
    const ms = (x) => `${x.toFixed(3)} ms`;
    console.log(`pass ${pass + 1}: wasm client ${ms(f.wasmCall)}, TS SDK ${ms(f.sdkCall)}, ratio ${f.ratio.toFixed(3)}; `
      + `side panel path ${ms(f.lanePathCall)} (ratio ${f.pathRatio.toFixed(3)}), over the runtime port ${ms(f.portPathCall)}, worker round trip ${ms(f.status)}`);
    passes.push(f);
  }

  const median = (key) => [...passes].sort((a, b) => a[key] - b[key])[Math.floor(passes.length / 2)];
  const byRatio = median('ratio');
  const byPath = median('pathRatio');
  const ratios = passes.map((p) => p.ratio);
  console.log(`${REPEATS} passes of ${CALLS} sequential echo calls per client, interleaved in blocks of ${BLOCK}, after ${WARMUP} warm-up calls each; figures of the median pass`);
  console.log(`mcp_echo_p50_wasm_ms=${byRatio.wasmCall.toFixed(2)}`);
  console.log(`mcp_echo_p50_ts_sdk_ms=${byRatio.sdkCall.toFixed(2)}`);
  console.log(`mcp_echo_p50_ratio=${byRatio.ratio.toFixed(2)}`);
  console.log(`mcp_echo_p50_ratio_min=${Math.min(...ratios).toFixed(2)}`);
  console.log(`mcp_echo_p50_ratio_max=${Math.max(...ratios).toFixed(2)}`);
  console.log(`mcp_echo_p50_side_panel_path_ms=${byPath.lanePathCall.toFixed(2)}`);
  console.log(`mcp_echo_p50_side_panel_path_ratio=${byPath.pathRatio.toFixed(2)}`);
  console.log(`mcp_echo_p50_runtime_port_path_ms=${byPath.portPathCall.toFixed(2)}`);
  console.log(`worker_round_trip_p50_ms=${byPath.status.toFixed(3)}`);
} finally {
  await browser.close();
  await everything.stop();
  rmSync(benchDist, { recursive: true, force: true });
}
