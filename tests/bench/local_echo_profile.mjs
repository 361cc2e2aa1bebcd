// Where the worker's time goes in a tool call to a local (stdio) server: a CPU profile of the
// worker over 300 `echo` calls to server-everything through the bridge, self time by function.
// A developer's tool, rerun after a change (the worker module keeps its function names here):
//
//   cargo xtask dist && cargo build -p gemipanel-bridge && \
//     GEMIPANEL_EXTENSION_ID=kllodkfcinihfdkamgbfclpklodomgdp node tests/bench/local_echo_profile.mjs
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { launchOverPipe } from './cdp_pipe.mjs';
import { withNativeMessaging } from '../e2e/harness.mjs';
const root = resolve(import.meta.dirname, '../..');
const built = resolve(process.env.GEMIPANEL_DIST ?? join(root, 'dist'));
const copy = mkdtempSync(join(tmpdir(), 'gemipanel-named-'));
cpSync(built, copy, { recursive: true });
const target = resolve(root, process.env.CARGO_TARGET_DIR ?? 'target');
const wasm = join(target, 'wasm32-unknown-unknown/release/gemipanel_background.wasm');
execFileSync('wasm-bindgen', ['--target', 'web', '--no-typescript', '--out-name', 'background', '--out-dir', join(copy, 'wasm'), wasm]);
const module = join(copy, 'wasm/background_bg.wasm');
execFileSync(join(root, 'tests/node_modules/.bin/wasm-opt'), ['-Oz', '--low-memory-unused', '-g', module, '-o', module]);
const ours = process.env.GEMIPANEL_EXTENSION_ID;
if (!ours) throw new Error('GEMIPANEL_EXTENSION_ID is not set');
// The optional `nativeMessaging` granted at install, as the e2e harness does.
const cdp = await launchOverPipe({ extensions: [withNativeMessaging(copy)], beforeStart: (profile) => execFileSync(join(target, 'debug/gemipanel-bridge'), ['install', '--user-data-dir', profile, '--extension-id', ours]) });
try {
  await cdp.send('Target.setDiscoverTargets', { discover: true });
  await new Promise((r) => setTimeout(r, 1500));
  const { targetId } = await cdp.send('Target.createTarget', { url: `chrome-extension://${ours}/manifest.json` });
  const { sessionId: page } = await cdp.send('Target.attachToTarget', { targetId, flatten: true });
  await cdp.send('Runtime.enable', {}, page);
  const everything = resolve(root, 'tests/node_modules/@modelcontextprotocol/server-everything/dist/index.js');
  const ask = (req) => cdp.evaluate(page, `chrome.runtime.sendMessage(${JSON.stringify({ id: 1, request: req })})`);
  const ID = 'srv_prof000000000000';
  await ask({ type: 'edit_settings', edit: { type: 'add_server', id: ID, server: { name: 'p', url: '', local: { command: process.execPath, args: [everything, 'stdio'] } } } });
  const servers = await ask({ type: 'list_servers' });
  // Allowed as a person allows it: the line the bridge showed, by its fingerprint.
  const view = servers.response.servers.find((s) => s.id === ID);
  const run = view.status?.line?.fingerprint;
  if (!run) throw new Error(`the bridge showed no line: ${JSON.stringify(view.status)}`);
  await ask({ type: 'edit_settings', edit: { type: 'confirm_command', id: ID, command_line: view.command_line, run } });
  const loop = (n) => cdp.evaluate(page, `(async () => { const s = []; for (let i = 0; i < ${n}; i++) { const t = performance.now();
    const r = await chrome.runtime.sendMessage({ id: i, request: { type: 'call_tool', call_id: 'p' + Math.random(), server_id: '${ID}', tool: 'echo', arguments: { message: 'hello' } } });
    s.push(performance.now() - t); if (r?.response?.result?.content?.[0]?.text !== 'Echo: hello') throw new Error(JSON.stringify(r)); }
    s.sort((a, b) => a - b); return s[s.length >> 1]; })()`);
  console.log('warm p50', await loop(100));
  const { targetInfos } = await cdp.send('Target.getTargets');
  const worker = targetInfos.find((i) => i.type === 'service_worker' && i.url.includes(ours));
  const { sessionId: ws } = await cdp.send('Target.attachToTarget', { targetId: worker.targetId, flatten: true });
  await cdp.send('Profiler.enable', {}, ws);
  await cdp.send('Profiler.setSamplingInterval', { interval: 25 }, ws);
  await cdp.send('Profiler.start', {}, ws);
  console.log('profiled p50', await loop(300));
  const { profile } = await cdp.send('Profiler.stop', {}, ws);
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map();
  let total = 0;
  profile.samples.forEach((id, i) => {
    const dt = (profile.timeDeltas[i + 1] ?? 0) / 1000;
    const f = nodes.get(id).callFrame;
    const name = `${f.functionName || '(anon)'} ${f.url.split('/').pop()}`;
    self.set(name, (self.get(name) ?? 0) + dt);
    if (f.functionName !== '(idle)') total += dt;
  });
  console.log('busy ms total', total.toFixed(1), 'per call', (total / 300).toFixed(3));
  for (const [k, v] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 40)) console.log(v.toFixed(1).padStart(8), k.slice(0, 140));
} finally {
  await cdp.close();
  rmSync(copy, { recursive: true, force: true });
}
