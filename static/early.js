// Runs while the side panel's page is still being parsed, before its module loads: starts
// fetching the panel's wasm, and asks the worker for what the panel shows first, so that a
// sleeping worker wakes while the page compiles its own wasm instead of after. The panel takes each answer once (browser::early);
// a failure leaves null, and the panel asks again over its port.
globalThis.gemipanelEarly = {
  // The module's bytes start coming now; sidepanel.js compiles them as they arrive.
  module: fetch(new URL('wasm/sidepanel_bg.wasm', location.href)),
  status: chrome.runtime.sendMessage({ id: 0, request: { type: 'status' } }).catch(() => null),
  settings: chrome.runtime.sendMessage({ id: 0, request: { type: 'get_settings' } }).catch(() => null),
};
