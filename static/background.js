// The service worker's entry. Listeners are registered synchronously, before wasm is ready, so
// the message that wakes a stopped worker is not lost; each one waits for `ready` and forwards.
import init, * as worker from './wasm/background.js';
import { dropOtherBuilds, fileKept, keptOrFile } from './kept_wasm.js';

// Marks of how a start goes (read by `cargo xtask bench`; cheap, and visible in DevTools).
performance.mark('gemipanel-evaluated');

// The module starts from its copy in Cache Storage (static/kept_wasm.js): that read is most of
// what a stopped worker waits for before it can answer (`cargo xtask bench`, worker_wasm_ready).
// A copy that fails to start is replaced from the file, which the worker then starts from.
const WASM_NAME = 'background_bg.wasm';
const WASM_FILE = new URL(`./wasm/${WASM_NAME}`, import.meta.url);
// Storage that does not answer within this (a busy disk) starts the worker from the file.
const CACHE_PATIENCE_MS = 300;
let fromCache = false;

async function wasmSource() {
  const { response, kept } = await keptOrFile(WASM_NAME, WASM_FILE, CACHE_PATIENCE_MS);
  if (kept) {
    fromCache = true;
    performance.mark('gemipanel-wasm_cached');
  }
  return response;
}

const ready = init({ module_or_path: wasmSource() })
  .catch((err) => {
    if (!fromCache) throw err;
    console.warn('GemiPanel: the kept copy of the worker module did not start; using the file', err);
    return init({ module_or_path: fileKept(WASM_NAME, WASM_FILE) });
  })
  .then((exports) => {
    // For `cargo xtask bench` (memory.mjs): a service worker's wasm memory is not among the
    // heap figures DevTools reports. Only this worker's own code can reach its global.
    self.gemipanelMemory = exports.memory;
    worker.start();
    performance.mark('gemipanel-wasm_ready');
  });
let answered = false;
const firstAnswer = () => {
  if (!answered) performance.mark('gemipanel-answered');
  answered = true;
};

// Fast lanes (browser/src/channel.rs): a page names its port `<name>#<token>` and hands this
// worker one end of a MessageChannel with the same token. Once both are here, requests on the
// channel are answered on it: page and worker share a process, so this skips the browser
// process a runtime port goes through (0.05 ms a round trip instead of about 0.7 ms). The port
// still carries events and its disconnect still tells the page that the worker stopped.
const lanes = (() => {
  const SEPARATOR = '#';
  const waiting = new Map(); // token → { port, channel }, until both halves are here
  const open = new Map(); // token → channel
  let lastKeepAlive = 0;

  // Messages on a channel are no extension events, so they would not keep the worker alive;
  // an extension API call does (Chrome 110+), once a second at most.
  const keepAlive = () => {
    const now = Date.now();
    if (now - lastKeepAlive < 1000) return;
    lastKeepAlive = now;
    chrome.runtime.getPlatformInfo().catch(() => {});
  };

  const pair = (token) => {
    const entry = waiting.get(token);
    if (!entry?.port || !entry.channel) return;
    waiting.delete(token);
    const { port, channel } = entry;
    open.set(token, channel);
    const reply = (text) => channel.postMessage(text);
    channel.onmessage = (event) => {
      keepAlive();
      worker.on_port_message(port, event.data, reply);
    };
    channel.postMessage({ kind: 'channel_ready' });
  };

  const half = (token) => {
    let entry = waiting.get(token);
    if (!entry) {
      entry = {};
      waiting.set(token, entry);
      // A half whose other half never comes is dropped.
      setTimeout(() => { if (waiting.get(token) === entry) waiting.delete(token); }, 30_000);
    }
    return entry;
  };

  self.addEventListener('message', (event) => {
    const token = event.data?.gemipanel_channel;
    const channel = event.ports?.[0];
    if (typeof token !== 'string' || !channel || open.has(token)) return;
    half(token).channel = channel;
    // Pairs once the port is here too, which is only once wasm is ready.
    pair(token);
  });

  return {
    token: (port) => {
      const at = port.name.lastIndexOf(SEPARATOR);
      return at < 0 ? null : port.name.slice(at + 1);
    },
    connected: (token, port) => {
      if (!token) return;
      half(token).port = port;
      pair(token);
    },
    forget: (token) => {
      if (!token) return;
      waiting.delete(token);
      open.get(token)?.close();
      open.delete(token);
    },
  };
})();

chrome.runtime.onMessage.addListener((message, _sender, sendResponse) => {
  // A page telling the side panels its tools changed (browser/js/page.js): not for the worker.
  if (message?.type === 'page_toolchange') return false;
  ready
    .then(() => worker.on_message(message))
    .then((reply) => { firstAnswer(); sendResponse(reply); }, (err) => sendResponse({
      kind: 'response',
      id: typeof message?.id === 'number' ? message.id : 0,
      response: { type: 'error', message: `the background worker failed: ${err}` },
    }));
  return true; // the answer is asynchronous
});

chrome.runtime.onConnect.addListener((port) => {
  // Messages that arrive while wasm is still loading wait here, in order.
  const early = [];
  let deliver = (message) => early.push(message);
  port.onMessage.addListener((message) => deliver(message));
  const token = lanes.token(port);
  port.onDisconnect.addListener(() => {
    lanes.forget(token);
    ready.then(() => worker.on_disconnect(port));
  });
  ready.then(() => {
    worker.on_connect(port);
    deliver = (message) => worker.on_port_message(port, message);
    early.splice(0).forEach(deliver);
    lanes.connected(token, port);
  });
});

// The keyboard shortcut from the manifest's `commands`. Chrome has no built-in command for the
// side panel, and `sidePanel.open` only counts as a user action when called synchronously here.
chrome.commands.onCommand.addListener((command, tab) => {
  if (command === 'open-side-panel' && tab) chrome.sidePanel.open({ windowId: tab.windowId });
});

// Install and update (background/src/installed.rs): the context menu ("Ask GemiPanel about …")
// is registered, a first install opens the welcome page, an update keeps the changelog line
// for the side panel, and the old build's module copies go (kept_wasm.js). A click on the menu
// opens the side panel here, inside the click (later, Chrome would refuse it), and the worker
// keeps what was clicked for the panel of that window.
chrome.runtime.onInstalled.addListener((details) => {
  dropOtherBuilds().catch(() => {});
  ready.then(() => worker.on_installed(details.reason, details.previousVersion));
});
chrome.contextMenus.onClicked.addListener((info, tab) => {
  if (tab) chrome.sidePanel.open({ windowId: tab.windowId }).catch(() => {});
  const click = { ...info, tabId: tab?.id, windowId: tab?.windowId, tabTitle: tab?.title };
  ready.then(() => worker.on_context_menu(click));
});

// `nativeMessaging` is optional. Chrome binds `chrome.runtime.connectNative` only in contexts
// started after it is granted, never in this running worker (a known Chrome behaviour, e.g.
// https://github.com/getAlby/lightning-browser-extension/issues/562), so when the person grants
// it the extension restarts once to start local servers; the second lets the click that asked
// (a Save or an import) reach the worker first. Its pages close with it; the popup said so.
const RESTART_AFTER_GRANT_MS = 1000;
chrome.permissions.onAdded.addListener((added) => {
  if (added.permissions?.includes('nativeMessaging') && typeof chrome.runtime.connectNative !== 'function') {
    setTimeout(() => chrome.runtime.reload(), RESTART_AFTER_GRANT_MS);
  }
});
