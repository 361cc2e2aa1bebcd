// Loads the MCP Apps host module (dist/wasm/apphost.js) the first time a chat shows an app.
import { keepSpareSandbox } from './app_frame.js';

let loading = null;
let loaded = null;

function load() {
  loading ??= import(chrome.runtime.getURL('wasm/apphost.js')).then(async (module) => {
    const exports = await module.default();
    // For `cargo xtask bench` (memory.mjs): this module's wasm memory is the page's too.
    globalThis.gemipanelAppHostMemory = exports.memory;
    loaded = module;
    return module;
  });
  return loading;
}

/** The apps inside `container` are about to go with it (see apphost's `departWithin`). */
export function departWithin(container) {
  loaded?.departWithin(container);
}

/** Gets ready for an app about to be shown: loads the module and a spare sandbox page. */
export function warmUp() {
  load().catch(() => {});
  keepSpareSandbox();
}

/** Shows an app in `container`; resolves to its view (see apphost/src/lib.rs). */
export async function mountApp(container, setup, host) {
  const { AppView } = await load();
  return new AppView(container, setup, host);
}
