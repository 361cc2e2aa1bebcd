import init from './wasm/sidepanel.js';
// The fetch early.js started, if it ran.
const module = globalThis.gemipanelEarly?.module ?? new URL('./wasm/sidepanel_bg.wasm', import.meta.url);
init({ module_or_path: module }).then((exports) => {
  // For `cargo xtask bench` (memory.mjs): the wasm memory's own size, beside the JS heap.
  globalThis.gemipanelMemory = exports.memory;
}).catch((error) => {
  // The static shell stays: it says why, rather than waiting for good.
  const main = document.querySelector('#shell main');
  if (main) main.textContent = chrome.i18n.getMessage('panelStartFailed', [String(error)]);
});
