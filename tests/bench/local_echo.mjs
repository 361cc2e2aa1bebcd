// Benchmark: p50 latency of sequential `echo` calls to a local (stdio) server-everything through
// the whole browser path — a page's request to the worker on the side panel's fast lane, the
// worker's MCP client, Chrome's native port, the bridge, the server's stdin and back — against
// the official TypeScript SDK's stdio client calling its own server-everything from Node
// (tests/bench/stdio_echo.mjs). The ratio is the cost of the extra hops (page to worker, worker
// to bridge through Chrome); each hop is also measured alone (a status request on the lane;
// Chrome's native-messaging round trip in plain JavaScript), the floor of the browser's path.
//
// Fairness: both are warmed up first, then blocks of calls alternate between the two, the order
// flipping every round, so a busy moment of the machine hits both alike. Prints `name=value`.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { resolve } from 'node:path';
import { launch } from '../e2e/harness.mjs';
import { installLane } from './lane.mjs';

const CALLS = Number(process.env.GEMIPANEL_BENCH_CALLS ?? 300);
const BLOCK = 25;
const WARMUP = 50;
const ID = 'srv_localbench00000';
const everything = resolve(import.meta.dirname, '../node_modules/@modelcontextprotocol/server-everything/dist/index.js');

// The protocol the bridge speaks, from its one definition.
const PROTOCOL = Number(readFileSync(resolve(import.meta.dirname, '../../core/src/native.rs'), 'utf8')
  .match(/PROTOCOL_VERSION: u32 = (\d+);/)[1]);

const p50 = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const browser = await launch({ bridge: true });
const sdk = spawn(process.execPath, [resolve(import.meta.dirname, 'stdio_echo.mjs')], { stdio: ['pipe', 'pipe', 'inherit'] });
try {
  const lines = createInterface({ input: sdk.stdout })[Symbol.asyncIterator]();
  const sdkLine = async () => (await lines.next()).value;
  const page = await browser.context.newPage();
  await page.goto(browser.url('popup.html'));
  const ask = (request) => page.evaluate((m) => chrome.runtime.sendMessage(m), { id: 1, request });
  const local = { command: process.execPath, args: [everything, 'stdio'] };
  const added = await ask({ type: 'edit_settings', edit: { type: 'add_server', id: ID, server: { name: 'bench', url: '', local } } });
  if (added?.response?.type !== 'settings') throw new Error(`adding the server failed: ${JSON.stringify(added)}`);
  const servers = await ask({ type: 'list_servers' });
  const line = servers.response.servers.find((s) => s.id === ID).command_line;
  await ask({ type: 'edit_settings', edit: { type: 'confirm_command', id: ID, command_line: line } });

  // The page's side, the way the side panel asks (the fast lane): N sequential calls timed in
  // the page, latencies in milliseconds.
  await page.evaluate(installLane);
  let calls = 0;
  const browserBlock = (n) => page.evaluate(async ({ n, id, first }) => {
    const samples = [];
    for (let i = 0; i < n; i++) {
      const start = performance.now();
      const response = await globalThis.laneRequest({
        type: 'call_tool', call_id: `b${first + i}`, server_id: id, tool: 'echo', arguments: { message: 'hello' },
      });
      samples.push(performance.now() - start);
      const text = response?.result?.content?.[0]?.text;
      if (text !== 'Echo: hello') throw new Error(`unexpected reply ${JSON.stringify(response)}`);
    }
    return samples;
  }, { n, id: ID, first: (calls += n) - n });
  const sdkBlock = async (n) => {
    sdk.stdin.write(`${n}\n`);
    return (await sdkLine()).split(' ').map((us) => Number(us) / 1000);
  };

  if ((await sdkLine()) !== 'ready') throw new Error('the SDK client did not start');
  await browserBlock(WARMUP);
  const ours = [];
  const theirs = [];
  for (let round = 0; ours.length < CALLS; round++) {
    if (round % 2 === 0) {
      ours.push(...await browserBlock(BLOCK));
      theirs.push(...await sdkBlock(BLOCK));
    } else {
      theirs.push(...await sdkBlock(BLOCK));
      ours.push(...await browserBlock(BLOCK));
    }
  }
  // The page-to-worker hop alone (a status request on the lane), to tell it from the bridge's.
  const hop = await page.evaluate(async (n) => {
    const samples = [];
    for (let i = 0; i < n; i++) {
      const start = performance.now();
      await globalThis.laneRequest({ type: 'status' });
      samples.push(performance.now() - start);
    }
    return samples;
  }, CALLS);
  // Chrome's native-messaging round trip alone: plain JavaScript in the worker, a `hello` to a
  // bridge of its own and back. With the hop above it is the floor of the browser's path.
  const nativeMessaging = await browser.worker.evaluate(async ([n, protocol]) => {
    const port = chrome.runtime.connectNative('io.github.gemipanel.bridge');
    let answered;
    port.onMessage.addListener((m) => answered(m));
    const hello = () => new Promise((r) => { answered = r; port.postMessage({ type: 'hello', protocol }); });
    for (let i = 0; i < 50; i++) await hello();
    const samples = [];
    for (let i = 0; i < n; i++) {
      const start = performance.now();
      await hello();
      samples.push(performance.now() - start);
    }
    port.disconnect();
    return samples;
  }, [CALLS, PROTOCOL]);
  console.log(`local server echo over ${CALLS} calls each`);
  console.log(`local_echo_native_messaging_round_trip_p50_ms=${p50(nativeMessaging).toFixed(3)}`);
  console.log(`local_echo_page_to_worker_hop_p50_ms=${p50(hop).toFixed(3)}`);
  console.log(`local_echo_browser_p50_ms=${p50(ours).toFixed(3)}`);
  console.log(`local_echo_sdk_stdio_p50_ms=${p50(theirs).toFixed(3)}`);
  console.log(`local_echo_browser_ratio=${(p50(ours) / p50(theirs)).toFixed(2)}`);
} finally {
  sdk.stdin.end();
  sdk.kill();
  await browser.close();
}
