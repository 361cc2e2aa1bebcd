// The side panel's first script (async in sidepanel.html, and imported by sidepanel.js, so it
// runs once, before the panel's module, whichever arrives first). It starts compiling the panel's
// wasm while the page still loads its JavaScript, and asks the worker for what the panel shows
// first, so that a sleeping worker wakes while the page compiles instead of after. The panel
// takes each answer once (browser::early); a failure leaves null, and the panel asks again over
// its port.
import { drop, keep, keptCopy, keyOf } from './kept_wasm.js';

const WASM_FILE = new URL('./wasm/sidepanel_bg.wasm', import.meta.url);
const WASM_KEY = keyOf('%WASM_BUILD%', 'sidepanel_bg.wasm'); // the hash, by `cargo xtask dist`

/** The panel's module, compiled from the kept copy, else from the file (and then kept). */
async function compile() {
  const kept = await keptCopy(WASM_KEY);
  if (kept) {
    try {
      const module = await WebAssembly.compileStreaming(kept);
      performance.mark('gemipanel-wasm_cached'); // read by the e2e tests
      return module;
    } catch (err) {
      console.warn('GemiPanel: the kept copy of the panel module did not compile; using the file', err);
      drop(WASM_KEY);
    }
  }
  const response = await fetch(WASM_FILE);
  if (!response.ok) throw new Error(`reading the panel's module: ${response.status}`);
  keep(WASM_KEY, response.clone());
  return WebAssembly.compileStreaming(response);
}

globalThis.gemipanelEarly = {
  module: compile(),
  status: chrome.runtime.sendMessage({ id: 0, request: { type: 'status' } }).catch(() => null),
  settings: chrome.runtime.sendMessage({ id: 0, request: { type: 'get_settings' } }).catch(() => null),
};
