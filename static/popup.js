import init from './wasm/popup.js';
init({ module_or_path: new URL('./wasm/popup_bg.wasm', import.meta.url) });
