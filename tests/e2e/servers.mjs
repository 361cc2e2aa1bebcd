// Real MCP servers on loopback for the browser tests, on free ports, stopped by the caller.
//
//   const everything = await startEverything();   // @modelcontextprotocol/server-everything
//   everything.url                                 // http://127.0.0.1:<port>/mcp
//   await everything.stop();
//   await startEverything({ transport: 'sse', port });  // the deprecated HTTP+SSE transport
//   // (GET /sse), on a chosen port (a restart keeps the URL)
//
//   const stateless = await startStateless2026();  // our v2 SDK fixture; stateless.addTool(name),
//   // await stateless.openListens()                 // its open subscriptions/listen streams
//
//   const slow = await startSlowServer({ delayMs: 200 });  // in this process: a minimal
//   // stateless (2026-07-28) server that answers every request after `delayMs`.
import { spawn } from 'node:child_process';
import http from 'node:http';
import net from 'node:net';
import { fileURLToPath } from 'node:url';

const testsDir = fileURLToPath(new URL('..', import.meta.url));
const node = fileURLToPath(new URL('../node_modules/.bin/node', import.meta.url));
const loopback = new URL('../fixtures/mcp/loopback.mjs', import.meta.url).href;
const everythingScript = fileURLToPath(
  new URL('../node_modules/@modelcontextprotocol/server-everything/dist/index.js', import.meta.url),
);

/** A port nobody listens on right now. */
export async function freePort() {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen({ port: 0, host: '127.0.0.1' }, () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

/**
 * Resolves true once the server says it listens, false when it found its port taken (see
 * fixtures/mcp/loopback.mjs): probing the port could find another test's server there.
 */
export function waitForListening(child, timeoutMs = 15_000) {
  return new Promise((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => done(new Error(`it did not listen within ${timeoutMs} ms`)), timeoutMs);
    const onData = (data) => {
      seen += data;
      if (seen.includes('gemipanel-test-server: listening')) done(null, true);
      else if (seen.includes('gemipanel-test-server: port taken')) done(null, false);
    };
    // 98: loopback.mjs found the port taken (its line may still be in the pipe).
    const onExit = (code) => (code === 98 ? done(null, false) : done(new Error(`it exited with ${code}`)));
    function done(error, listening) {
      clearTimeout(timer);
      child.stderr.off('data', onData);
      child.off('exit', onExit);
      if (error) reject(error);
      else resolve(listening);
    }
    child.stderr.on('data', onData);
    child.once('exit', onExit);
  });
}

/**
 * server-everything over Streamable HTTP (stateful sessions, SSE replies), or with
 * `transport: 'sse'` over the deprecated HTTP+SSE transport of 2024-11-05.
 */
export async function startEverything({ transport = 'streamableHttp', port } = {}) {
  const path = transport === 'sse' ? 'sse' : 'mcp';
  return startNode('server-everything', [everythingScript, transport], { port, path });
}

/**
 * The stateless 2026-07-28 fixture on the v2 SDK (tests/fixtures/mcp/stateless-2026.mjs):
 * `addTool(name)` and `addPrompt(name)` change its tool and prompt lists as another client
 * would, and `touchNotes()` its resource `test://notes`, announcing it only on
 * `subscriptions/listen` streams.
 */
export async function startStateless2026() {
  const script = fileURLToPath(new URL('../fixtures/mcp/stateless-2026.mjs', import.meta.url));
  const server = await startNode('stateless-2026', [script], { extraArgs: (port) => [String(port)] });
  const call = async (tool, name, said) => {
    const meta = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientInfo': { name: 'e2e', version: '1.0.0' },
      'io.modelcontextprotocol/clientCapabilities': {},
    };
    const response = await fetch(server.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/call',
        'mcp-name': tool,
      },
      body: JSON.stringify({
        jsonrpc: '2.0', id: 1, method: 'tools/call',
        params: { name: tool, arguments: { name }, _meta: meta },
      }),
    });
    const text = await response.text();
    if (!response.ok || !text.includes(said)) {
      throw new Error(`${tool} failed: ${response.status} ${text}`);
    }
  };
  server.addTool = (name) => call('add_tool', name, `added ${name}`);
  server.addPrompt = (name) => call('add_prompt', name, `added prompt ${name}`);
  /** Changes `test://notes` (to `notes v2`, v3, …) and announces it to the streams subscribed. */
  server.touchNotes = () => call('touch_notes', undefined, 'notes v');
  /** How many `subscriptions/listen` streams are open on it now. */
  server.openListens = async () => (await (await fetch(new URL('/stats', server.url))).json()).openListens;
  return server;
}

/**
 * The TypeScript SDK's OAuth example (`simpleStreamableHttp.js --oauth`): an MCP server that
 * answers 401 with RFC 9728 metadata, and its authorization server (dynamic registration, PKCE
 * S256, `/authorize` approving at once) on a second port. No refresh tokens, no revocation.
 */
export async function startSdkOAuth() {
  const script = fileURLToPath(new URL(
    '../node_modules/@modelcontextprotocol/sdk/dist/esm/examples/server/simpleStreamableHttp.js',
    import.meta.url,
  ));
  const authPort = await freePort();
  return startNode('sdk-oauth', [script, '--oauth'], {
    // Its URLs name `localhost`: the issuer and resource it advertises must match.
    host: 'localhost',
    env: (port) => ({ MCP_PORT: String(port), MCP_AUTH_PORT: String(authPort), GEMIPANEL_TEST_LISTENS: '2' }),
  });
}

async function startNode(name, args, { extraArgs = () => [], port, path = 'mcp', env, host } = {}) {
  // A chosen port (a restart) may still be held by another test's server: wait for it.
  const attempts = port === undefined ? 5 : 40;
  for (let attempt = 1; ; attempt += 1) {
    const chosen = port ?? (await freePort());
    const server = await tryStartNode(name, args, extraArgs, chosen, path, env, host);
    if (server) return server;
    if (attempt === attempts) throw new Error(`${name} did not start: its port stayed taken`);
    if (port !== undefined) await new Promise((r) => setTimeout(r, 250));
  }
}

/** The started server, or null when its port was taken. */
async function tryStartNode(name, args, extraArgs, port, path, env, host = '127.0.0.1') {
  // With its own variables a script picks its ports itself (see loopback.mjs).
  const ports = env ? env(port) : { PORT: String(port), GEMIPANEL_TEST_PORT: String(port) };
  const child = spawn(node, ['--import', loopback, ...args, ...extraArgs(port)], {
    cwd: testsDir,
    env: { ...process.env, ...ports },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let log = '';
  child.stderr.on('data', (d) => { log = (log + d).slice(-4000); });
  try {
    if (!(await waitForListening(child))) return null;
  } catch (err) {
    child.kill();
    throw new Error(`${name} did not start: ${err.message}\n${log}`);
  }
  return {
    port,
    url: `http://${host}:${port}/${path}`,
    log: () => log,
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill();
      await exited;
    },
  };
}

/**
 * A minimal stateless MCP server (protocol 2026-07-28, JSON replies) that waits `delayMs`
 * before each answer and offers `tools` (names, or a function giving them per request; an object
 * is listed as it is, for a malformed tool). Counts
 * the requests it got. With `requireAuth` every request is answered 401, as a server that wants
 * an OAuth sign-in does.
 */
export async function startSlowServer({ delayMs = 200, name = 'slow', tools = ['wait'], requireAuth = false, held = false } = {}) {
  let requests = 0;
  // `held`: answers wait until `release()`, so a test decides when the server "answers".
  let release;
  const gate = held ? new Promise((resolve) => { release = resolve; }) : Promise.resolve();
  let lastTools = [];
  const server = http.createServer(async (req, res) => {
    let body = '';
    for await (const chunk of req) body += chunk;
    if (req.method !== 'POST') { res.writeHead(405).end(); return; }
    requests += 1;
    if (requireAuth) {
      res.writeHead(401, { 'www-authenticate': 'Bearer resource_metadata="http://127.0.0.1/.well-known/oauth-protected-resource"' });
      res.end('sign in first');
      return;
    }
    let message;
    try { message = JSON.parse(body); } catch { res.writeHead(400).end(); return; }
    if (message.id === undefined) { res.writeHead(202).end(); return; }
    await new Promise((r) => setTimeout(r, delayMs));
    await gate;
    const reply = (result) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result }));
    };
    switch (message.method) {
      case 'server/discover':
        return reply({
          supportedVersions: ['2026-07-28'],
          capabilities: { tools: {} },
          _meta: { 'io.modelcontextprotocol/serverInfo': { name, version: '1.0.0' } },
        });
      case 'tools/list':
        lastTools = typeof tools === 'function' ? tools() : tools;
        return reply({
          tools: lastTools.map((t) => (typeof t === 'string' ? { name: t, inputSchema: { type: 'object' } } : t)),
        });
      case 'tools/call':
        return reply({ content: [{ type: 'text', text: `${name}: ${message.params?.name}` }] });
      default:
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({
          jsonrpc: '2.0', id: message.id, error: { code: -32601, message: 'Method not found' },
        }));
    }
  });
  await new Promise((resolve) => server.listen({ port: 0, host: '127.0.0.1' }, resolve));
  const { port } = server.address();
  return {
    port,
    url: `http://127.0.0.1:${port}/mcp`,
    requests: () => requests,
    lastTools: () => lastTools,
    release: () => release?.(),
    stop: () => new Promise((resolve) => { release?.(); server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

/**
 * One of the MCP Apps project's published example servers (`@modelcontextprotocol/server-<name>`,
 * e.g. `basic-react`) over Streamable HTTP.
 */
export async function startPublishedApp(name) {
  const script = fileURLToPath(
    new URL(`../node_modules/@modelcontextprotocol/server-${name}/dist/index.js`, import.meta.url),
  );
  return startNode(`server-${name}`, [script]);
}

/**
 * The demo MCP server (demo/, built by `cargo build -p gemipanel-demo`; `cargo xtask test`
 * builds it) with its app bundled as `cargo xtask run` bundles it.
 */
export async function startDemo() {
  const root = fileURLToPath(new URL('../..', import.meta.url));
  const target = process.env.CARGO_TARGET_DIR ?? `${root}/target`;
  const app = `${target}/e2e/demo-colour-picker.html`;
  await new Promise((resolve, reject) => {
    const build = spawn(node, [`${root}/demo/app/build.mjs`, app], { stdio: ['ignore', 'ignore', 'inherit'] });
    build.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`demo/app/build.mjs exited with ${code}`))));
  });
  const child = spawn(`${target}/debug/gemipanel-demo`, ['--app', app], { stdio: ['ignore', 'pipe', 'pipe'] });
  const url = await new Promise((resolve, reject) => {
    let seen = '';
    child.stdout.on('data', (data) => {
      seen += data;
      const found = seen.match(/listening on (\S+)/);
      if (found) resolve(found[1]);
    });
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`gemipanel-demo exited with ${code}: ${seen}`)));
  });
  return {
    url,
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill();
      await exited;
    },
  };
}

/**
 * A server that takes every HTTP request and never answers it, as a hung process behind an
 * open port does. `open()` counts the requests it holds right now, `received()` all it got.
 */
export async function startHangingServer() {
  const held = new Set();
  let received = 0;
  const server = http.createServer((req, res) => {
    received += 1;
    held.add(res);
    res.on('close', () => held.delete(res));
  });
  await new Promise((resolve) => server.listen({ port: 0, host: '127.0.0.1' }, resolve));
  const { port } = server.address();
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    open: () => held.size,
    received: () => received,
    stop: () => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}
