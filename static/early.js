// The side panel's first script (async in sidepanel.html, and imported by sidepanel.js, so it
// runs once, before the panel's module, whichever arrives first). It starts compiling the panel's
// wasm while the page still loads its JavaScript, and asks the worker for what the panel shows
// first, so that a sleeping worker wakes while the page compiles instead of after. The panel
// takes each answer once (browser::early); a failure leaves null, and the panel asks again over
// its port. Nothing here may throw: sidepanel.js, which shows why a start failed, imports it.
import { fileKept, keptOrFile } from './kept_wasm.js';

// Marks of how an open goes, on the page's clock (tests/bench/panel_open_profile.mjs; cheap,
// and visible in DevTools).
performance.mark('gemipanel-early');

const WASM_NAME = 'sidepanel_bg.wasm';
const WASM_FILE = new URL(`./wasm/${WASM_NAME}`, import.meta.url);
// The kept copy is read in about 7 ms; storage slower than the file is not waited for.
const PATIENCE_MS = 40;

/** Whether the module came from the kept copy: one that does not compile or start is replaced
 * from the file, which the panel then starts from (sidepanel.js, `fromFile`). */
export let fromCopy = false;

/** The module's file, kept in place of the copy. */
export const fromFile = () => fileKept(WASM_NAME, WASM_FILE);

async function compile() {
  const { response, kept } = await keptOrFile(WASM_NAME, WASM_FILE, PATIENCE_MS);
  fromCopy = kept;
  // Chrome serves an extension's .wasm as application/wasm, which streaming compilation needs.
  const module = await WebAssembly.compileStreaming(response);
  if (kept) performance.mark('gemipanel-wasm_cached'); // read by the e2e tests
  performance.mark('gemipanel-compiled');
  return module;
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
const status = ask('status');
status.then(() => performance.mark('gemipanel-early_status'));
globalThis.gemipanelEarly = { module, status, settings: ask('get_settings') };
