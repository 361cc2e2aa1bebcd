// The side panel's first script (async in sidepanel.html, and imported by sidepanel.js, so it
// runs once, before the panel's module, whichever arrives first). It starts compiling the panel's
// wasm while the page still loads its JavaScript, and asks the worker for what the panel shows
// first, so that a sleeping worker wakes while the page compiles instead of after. The panel
// takes each answer once (browser::early); a failure leaves null, and the panel asks again over
// its port. Nothing here may throw: sidepanel.js, which shows why a start failed, imports it.
import { drop, keep, keptCopy, keyOf } from './kept_wasm.js';

const WASM_FILE = new URL('./wasm/sidepanel_bg.wasm', import.meta.url);
const WASM_KEY = keyOf('%WASM_BUILD%', 'sidepanel_bg.wasm'); // the hash, by `cargo xtask dist`
// The kept copy is read in about 7 ms; storage slower than the file is not waited for.
const PATIENCE_MS = 40;

/** Whether the module came from the kept copy (sidepanel.js drops a copy that does not start). */
export let fromCopy = false;

/** Drops the kept copy and starts from the file. */
export function useFile() {
  drop(WASM_KEY);
  return WASM_FILE;
}

/** The panel's module, compiled from the kept copy, else from the file (and then kept). */
async function compile() {
  const kept = await keptCopy(WASM_KEY, PATIENCE_MS);
  if (kept) {
    try {
      const module = await WebAssembly.compileStreaming(kept);
      performance.mark('gemipanel-wasm_cached'); // read by the e2e tests
      fromCopy = true;
      return module;
    } catch (err) {
      // The good copy kept below replaces it.
      console.warn('GemiPanel: the kept copy of the panel module did not compile; using the file', err);
    }
  }
  const response = await fetch(WASM_FILE);
  if (!response.ok) throw new Error(`reading the panel's module: ${response.status}`);
  keep(WASM_KEY, response.clone());
  // Chrome serves an extension's .wasm as application/wasm, which streaming compilation needs.
  return WebAssembly.compileStreaming(response);
}

function ask(type) {
  try {
    return chrome.runtime.sendMessage({ id: 0, request: { type } }).catch(() => null);
  } catch {
    return Promise.resolve(null); // e.g. an extension context already invalidated
  }
}

const module = compile();
module.catch(() => {}); // sidepanel.js reports it
globalThis.gemipanelEarly = { module, status: ask('status'), settings: ask('get_settings') };
