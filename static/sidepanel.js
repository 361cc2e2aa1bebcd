import init from './wasm/sidepanel.js';
init({ module_or_path: new URL('./wasm/sidepanel_bg.wasm', import.meta.url) });
