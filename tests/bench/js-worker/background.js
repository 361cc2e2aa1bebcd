// The least a worker can do to answer `get_settings`: read the stored document and send it.
// The floor (../wasm-floor/floor-worker.js) sets `benchBeforeReady` to a wasm compile first;
// the reference has nothing to wait for.
chrome.runtime.onMessage.addListener((message, _sender, sendResponse) => {
  Promise.all([chrome.storage.local.get('settings'), globalThis.benchBeforeReady]).then(([{ settings }]) => {
    sendResponse({ kind: 'response', id: message?.id ?? 0, response: { type: 'settings', settings } });
  });
  return true;
});
