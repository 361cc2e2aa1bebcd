// The reference panel (../js-panel/panel.js), which also compiles GemiPanel's side panel module
// (streamed, as GemiPanel's early.js and sidepanel.js do) before the status counts as shown.
globalThis.benchBeforeReady = WebAssembly.compileStreaming(fetch('panel.wasm'));
await import('./panel.js');
