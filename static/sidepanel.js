import { fromCopy, fromFile } from './early.js';
import init from './wasm/sidepanel.js';

// The module early.js compiled (wasm-bindgen's init takes a compiled module, or a promise of one).
init({ module_or_path: globalThis.gemipanelEarly.module }).catch((error) => {
  if (!fromCopy) throw error;
  console.warn('GemiPanel: the kept copy of the panel module did not start; using the file', error);
  return init({ module_or_path: fromFile() });
}).then((exports) => {
  performance.mark('gemipanel-started'); // mounted and drawn (tests/bench/panel_open_profile.mjs)
  // For `cargo xtask bench` (memory.mjs): the wasm memory's own size, beside the JS heap.
  globalThis.gemipanelMemory = exports.memory;
}).catch((error) => {
  // The static shell stays: it says why, rather than waiting for good.
  const main = document.querySelector('#shell main');
  if (main) main.textContent = chrome.i18n.getMessage('panelStartFailed', [String(error)]);
});
