import init from './wasm/sidepanel.js';
// The fetch early.js started, if it ran.
const module = globalThis.gemipanelEarly?.module ?? new URL('./wasm/sidepanel_bg.wasm', import.meta.url);
init({ module_or_path: module });
