// Benchmark: p50 latency of sequential `echo` calls against server-everything, from the
// extension's wasm MCP client (page → port → worker → server) and from the official TypeScript
// SDK client loaded in a page of the same browser and origin. Prints `name=value` figures.
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
const WARMUP = 20;

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

  const wasm = await page.evaluate(async ({ calls, warmup }) => {
    const port = chrome.runtime.connect({ name: 'bench' });
    const waiting = new Map();
    port.onMessage.addListener((m) => { if (m.kind === 'response') waiting.get(m.id)?.(m.response); });
    let id = 10;
    const call = (text) => new Promise((resolve) => {
      const mine = id++;
      waiting.set(mine, resolve);
      port.postMessage({ id: mine, request: { type: 'call_tool', call_id: `c${mine}`,
        server_id: 'srv_bench000000000', tool: 'echo', arguments: { message: text } } });
    });
    const times = [];
    for (let i = 0; i < warmup + calls; i++) {
      const start = performance.now();
      const response = await call(`hello ${i}`);
      if (response.type !== 'tool_result') throw new Error(JSON.stringify(response));
      if (i >= warmup) times.push(performance.now() - start);
    }
    port.disconnect();
    return times;
  }, { calls: CALLS, warmup: WARMUP });

  const sdk = await page.evaluate(async ({ url, calls, warmup }) => {
    const { Client, StreamableHTTPClientTransport } = globalThis.McpSdk;
    const client = new Client({ name: 'bench', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    const times = [];
    for (let i = 0; i < warmup + calls; i++) {
      const start = performance.now();
      await client.callTool({ name: 'echo', arguments: { message: `hello ${i}` } });
      if (i >= warmup) times.push(performance.now() - start);
    }
    await client.close();
    return times;
  }, { url: everything.url, calls: CALLS, warmup: WARMUP });

  const p50 = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const [a, b] = [p50(wasm), p50(sdk)];
  console.log(`${CALLS} sequential echo calls after ${WARMUP} warm-up calls each`);
  console.log(`mcp_echo_p50_wasm_ms=${a.toFixed(2)}`);
  console.log(`mcp_echo_p50_ts_sdk_ms=${b.toFixed(2)}`);
  console.log(`mcp_echo_p50_ratio=${(a / b).toFixed(2)}`);
} finally {
  await browser.close();
  await everything.stop();
  rmSync(benchDist, { recursive: true, force: true });
}
