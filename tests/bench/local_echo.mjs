// Benchmark: p50 latency of sequential `echo` calls to a local (stdio) server-everything through
// the whole browser path — a page's request to the worker on the side panel's fast lane, the
// worker's MCP client, Chrome's native port, the bridge, the server's stdin and back — against
// two references measured in the same run:
// - the browser's floor (`local_echo_floor_ratio`, issue 24, goal ≤ 1.25): plain JavaScript in a
//   page and a worker (tests/bench/js-local) carrying the same call over a MessageChannel and
//   `connectNative` to the same bridge and the same server, in a second browser; the reference
//   gets GemiPanel's manifest key, so the bridge serves it as it serves GemiPanel;
// - the official TypeScript SDK's stdio client calling its own server-everything from Node
//   (tests/bench/stdio_echo.mjs), for information: it has no browser in its path.
// Each hop is also measured alone (a status request on the lane; Chrome's native-messaging round
// trip in plain JavaScript).
//
// Fairness: all are warmed up first, then blocks of calls alternate, the order rotating every
// round, so a busy moment of the machine hits each alike. `local_echo_floor_ratio` is the median
// over rounds of our block against the floor's, each by the mean of its middle half (single
// calls' p50s print too).
// Prints `name=value`.
import { spawn } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createInterface } from 'node:readline';
import { join, resolve } from 'node:path';
import { launch, dist } from '../e2e/harness.mjs';
import { installLane } from './lane.mjs';

const CALLS = Number(process.env.GEMIPANEL_BENCH_CALLS ?? 600);
const BLOCK = Number(process.env.GEMIPANEL_BENCH_BLOCK ?? 25);
const WARMUP = 50;
const ID = 'srv_localbench00000';
const everything = resolve(import.meta.dirname, '../node_modules/@modelcontextprotocol/server-everything/dist/index.js');

// The protocol the bridge speaks, from its one definition.
const PROTOCOL = Number(readFileSync(resolve(import.meta.dirname, '../../core/src/native.rs'), 'utf8')
  .match(/PROTOCOL_VERSION: u32 = (\d+);/)[1]);

const p50 = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
// The mean of the middle half: a block's figure, free of the clock's 0.1 ms steps and of the
// odd call that met a garbage collection.
const middleMean = (xs) => {
  const sorted = [...xs].sort((a, b) => a - b);
  const middle = sorted.slice(Math.floor(xs.length / 4), Math.ceil((xs.length * 3) / 4));
  return middle.reduce((a, b) => a + b, 0) / middle.length;
};

// The floor's extension, under GemiPanel's key (so its id, and the bridge's welcome, are ours).
const floorDir = mkdtempSync(join(tmpdir(), 'gemipanel-js-local-'));
cpSync(resolve(import.meta.dirname, 'js-local'), floorDir, { recursive: true });
const floorManifest = JSON.parse(readFileSync(join(floorDir, 'manifest.json'), 'utf8'));
floorManifest.key = JSON.parse(readFileSync(join(dist, 'manifest.json'), 'utf8')).key;
writeFileSync(join(floorDir, 'manifest.json'), JSON.stringify(floorManifest, null, 2));

const browser = await launch({ bridge: true });
const floorBrowser = await launch({ bridge: true, extension: floorDir });
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
  // Allowed as a person allows it: the line the bridge showed, by its fingerprint.
  const servers = await ask({ type: 'list_servers' });
  const view = servers.response.servers.find((s) => s.id === ID);
  const run = view.status?.line?.fingerprint;
  if (!run) throw new Error(`the bridge showed no line: ${JSON.stringify(view.status)}`);
  const confirmed = await ask({ type: 'edit_settings', edit: { type: 'confirm_command', id: ID, command_line: view.command_line, run } });
  if (confirmed?.response?.type !== 'settings') throw new Error(`allowing the line failed: ${JSON.stringify(confirmed)}`);

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

  // The floor: the same call from a plain page through a plain worker and the same bridge.
  const floorPage = await floorBrowser.context.newPage();
  await floorPage.goto(floorBrowser.url('page.html'));
  await floorPage.evaluate((start) => globalThis.floorRequest({ start }), { protocol: PROTOCOL, ...local });
  const floorBlock = (n) => floorPage.evaluate(async (n) => {
    const samples = [];
    for (let i = 0; i < n; i++) {
      const start = performance.now();
      const response = await globalThis.floorRequest({ call: { name: 'echo', arguments: { message: 'hello' } } });
      samples.push(performance.now() - start);
      const text = response?.result?.content?.[0]?.text;
      if (text !== 'Echo: hello') throw new Error(`unexpected reply ${JSON.stringify(response)}`);
    }
    return samples;
  }, n);

  if ((await sdkLine()) !== 'ready') throw new Error('the SDK client did not start');
  await browserBlock(WARMUP);
  await floorBlock(WARMUP);
  const ours = [];
  const floor = [];
  const theirs = [];
  // Each round's block of ours against its block of the floor, measured moments apart: the
  // page's clock steps 0.1 ms (a p50 of single calls moves by a tenth of the figure), the mean of
  // a block's middle half does not, and pairing by round keeps a busy stretch of the machine on
  // both sides.
  const roundRatios = [];
  const blocks = [
    async () => ours.push(...await browserBlock(BLOCK)),
    async () => floor.push(...await floorBlock(BLOCK)),
    async () => theirs.push(...await sdkBlock(BLOCK)),
  ];
  for (let round = 0; ours.length < CALLS; round++) {
    for (let i = 0; i < blocks.length; i++) await blocks[(round + i) % blocks.length]();
    roundRatios.push(middleMean(ours.slice(-BLOCK)) / middleMean(floor.slice(-BLOCK)));
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
  console.log(`local_echo_floor_p50_ms=${p50(floor).toFixed(3)}`);
  console.log(`local_echo_browser_ratio=${(p50(ours) / p50(theirs)).toFixed(2)}`);
  console.log(`local_echo_floor_p50_ratio=${(p50(ours) / p50(floor)).toFixed(2)}`);
  // The figure of issue 24: the median over rounds of ours against the floor.
  const sorted = [...roundRatios].sort((a, b) => a - b);
  console.log(`local_echo_floor_ratio=${p50(roundRatios).toFixed(2)}`);
  console.log(`local_echo_floor_ratio_spread=${sorted[0].toFixed(2)}..${sorted.at(-1).toFixed(2)}`);
} finally {
  sdk.stdin.end();
  sdk.kill();
  await browser.close();
  await floorBrowser.close();
  rmSync(floorDir, { recursive: true, force: true });
}
