// The least a worker can do to answer the panel's status request: read the stored settings
// (to count the servers) and say how long it has been up.
const started = performance.now();
chrome.runtime.onMessage.addListener((message, _sender, sendResponse) => {
  // The floor (../wasm-floor) compiles a wasm module first; the reference has nothing to wait for.
  Promise.all([chrome.storage.local.get('settings'), globalThis.benchBeforeReady]).then(([{ settings }]) => {
    sendResponse({
      kind: 'response',
      id: message?.id ?? 0,
      response: {
        type: 'status',
        extension_version: chrome.runtime.getManifest().version,
        uptime_ms: Math.round(performance.now() - started),
        configured_servers: settings?.servers?.length ?? 0,
      },
    });
  });
  return true;
});
