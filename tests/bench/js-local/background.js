// The least a worker can do to carry a page's tool call to a stdio server: a MessageChannel
// from the page (as GemiPanel's side panel has), Chrome's native port to the bridge, the
// bridge's protocol (core/src/native/wire.rs) and MCP's JSON-RPC, nothing else.
const SERVER = 'bench';
let bridge;
const waiting = new Map();
let nextId = 1;

function connect(protocol) {
  bridge = chrome.runtime.connectNative('io.github.gemipanel.bridge');
  bridge.onMessage.addListener((m) => {
    if (m.type === 'error') {
      // An error names no request: every waiter hears it.
      for (const done of waiting.values()) done(m);
      waiting.clear();
      return;
    }
    const key = m.type === 'message' ? `rpc:${m.message?.id}` : m.type;
    const done = waiting.get(key);
    if (done) { waiting.delete(key); done(m); }
  });
  return next('hello', { type: 'hello', protocol });
}

/** Posts `message` to the bridge and resolves with the reply waited for under `key`. */
function next(key, message) {
  return new Promise((resolve, reject) => {
    waiting.set(key, (m) => (m.type === 'error' ? reject(new Error(JSON.stringify(m.error))) : resolve(m)));
    bridge.postMessage(message);
  });
}

function rpc(method, params) {
  const id = nextId++;
  return next(`rpc:${id}`, { type: 'send', server: SERVER, message: { jsonrpc: '2.0', id, method, params } })
    .then((m) => m.message);
}

async function start({ protocol, command, args }) {
  await connect(protocol);
  const { line } = await next('resolved', { type: 'resolve', id: 1, command, args });
  await next('started', { type: 'start', server: SERVER, command, args, confirmed: line.fingerprint });
  await rpc('initialize', {
    protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'floor', version: '1.0.0' },
  });
  bridge.postMessage({ type: 'send', server: SERVER, message: { jsonrpc: '2.0', method: 'notifications/initialized' } });
}

self.addEventListener('message', (event) => {
  const lane = event.ports[0];
  if (!lane) return;
  lane.onmessage = async ({ data }) => {
    try {
      const result = data.start ? await start(data.start) : await rpc('tools/call', data.call);
      lane.postMessage({ id: data.id, result });
    } catch (e) {
      lane.postMessage({ id: data.id, error: String(e) });
    }
  };
});
