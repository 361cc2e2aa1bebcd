// Benchmark: p50 latency of sequential `echo` calls against server-everything, from the
// extension's wasm MCP client (page → worker → server, the way the side panel calls a tool) and
// from the official TypeScript SDK client loaded in a page of the same browser and origin.
// Prints `name=value` figures.
//
// Fairness: one server process serves both clients; both are connected and warmed up first;
// then blocks of calls alternate between the two (the order flips every round), so a busy
// moment of the machine hits both alike. The whole comparison runs REPEATS times; the figures
// are those of the median pass, with the spread of the ratio over all passes.
//
// The SDK client is bundled with esbuild into a copy of dist/ with one extra page, so both
// clients run under the same extension origin and host permissions.
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const esbuild = require('esbuild');
const CALLS = Number(process.env.GEMIPANEL_BENCH_CALLS ?? 500);
const REPEATS = Number(process.env.GEMIPANEL_BENCH_REPEATS ?? 3);
const WARMUP = 50;
const BLOCK = 25;

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
writeFileSync(join(benchDist, 'bench.html'),
  '<!doctype html><meta charset="utf-8"><title>bench</title><script src="bench-sdk.js"></script>');
process.env.GEMIPANEL_DIST = benchDist;

const { launch } = await import('../e2e/harness.mjs');
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
  await page.evaluate(async (url) => {
    const token = Math.random().toString(16).slice(2);
    const port = chrome.runtime.connect({ name: `bench#${token}` });
    const lane = new MessageChannel();
    const waiting = new Map();
    const onReply = (m) => { if (m?.kind === 'response') waiting.get(m.id)?.(m.response); };
    port.onMessage.addListener(onReply);
    const paired = new Promise((resolve) => {
      lane.port1.onmessage = (e) => (e.data?.kind === 'channel_ready' ? resolve() : onReply(JSON.parse(e.data)));
    });
    (await navigator.serviceWorker.ready).active.postMessage({ gemipanel_channel: token }, [lane.port2]);
    const timeout = new Promise((_, reject) => setTimeout(() => reject(new Error('the worker did not pair the fast lane')), 5000));
    await Promise.race([paired, timeout]);
    let id = 10;
    const request = (body) => new Promise((resolve) => {
      const mine = id++;
      waiting.set(mine, resolve);
      lane.port1.postMessage(JSON.stringify({ id: mine, request: body }));
    });
    globalThis.wasmCall = async (text) => {
      const response = await request({ type: 'call_tool', call_id: `c${id}`,
        server_id: 'srv_bench000000000', tool: 'echo', arguments: { message: text } });
      if (response.type !== 'tool_result') throw new Error(JSON.stringify(response));
    };
    // The same path over the runtime port alone, as pages without the lane (and the tests) use
    // it: shows what the lane saves.
    const plain = chrome.runtime.connect({ name: 'bench-port' });
    plain.onMessage.addListener(onReply);
    globalThis.wasmPortCall = (text) => new Promise((resolve, reject) => {
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
  const clients = ['wasmCall', 'sdkCall', 'wasmPortCall'];
  for (const name of clients) await block(name, WARMUP);

  const passes = [];
  for (let pass = 0; pass < REPEATS; pass++) {
    const times = { wasmCall: [], sdkCall: [], wasmPortCall: [], workerStatus: [] };
    for (let round = 0; times.wasmCall.length < CALLS; round++) {
      const order = round % 2 ? [...clients].reverse() : clients;
      for (const name of order) times[name].push(...await block(name, Math.min(BLOCK, CALLS - times[name].length)));
    }
    times.workerStatus = await block('workerStatus', 100);
    const figures = { wasm: p50(times.wasmCall), sdk: p50(times.sdkCall), port: p50(times.wasmPortCall), status: p50(times.workerStatus) };
    figures.ratio = figures.wasm / figures.sdk;
    console.log(`pass ${pass + 1}: wasm ${figures.wasm.toFixed(2)} ms, TS SDK ${figures.sdk.toFixed(2)} ms, ratio ${figures.ratio.toFixed(3)}, wasm over the runtime port ${figures.port.toFixed(2)} ms, worker round trip ${figures.status.toFixed(2)} ms`);
    passes.push(figures);
  }

  const median = [...passes].sort((a, b) => a.ratio - b.ratio)[Math.floor(passes.length / 2)];
  const ratios = passes.map((p) => p.ratio);
  console.log(`${REPEATS} passes of ${CALLS} sequential echo calls per client, interleaved in blocks of ${BLOCK}, after ${WARMUP} warm-up calls each`);
  console.log(`mcp_echo_p50_wasm_ms=${median.wasm.toFixed(2)}`);
  console.log(`mcp_echo_p50_ts_sdk_ms=${median.sdk.toFixed(2)}`);
  console.log(`mcp_echo_p50_ratio=${median.ratio.toFixed(2)}`);
  console.log(`mcp_echo_p50_ratio_min=${Math.min(...ratios).toFixed(2)}`);
  console.log(`mcp_echo_p50_ratio_max=${Math.max(...ratios).toFixed(2)}`);
  console.log(`mcp_echo_p50_wasm_runtime_port_ms=${median.port.toFixed(2)}`);
  console.log(`worker_round_trip_p50_ms=${median.status.toFixed(2)}`);
} finally {
  await browser.close();
  await everything.stop();
  rmSync(benchDist, { recursive: true, force: true });
}
