// The reference worker (../js-panel/background.js), which first compiles GemiPanel's worker
// module as GemiPanel's worker does (streamed from the extension's file). Compiling is the
// least a wasm worker does before it answers; running it (instantiating, the functions it
// calls compiled lazily, storage and serde) is GemiPanel's own cost above this floor.
const started = performance.now();
const compiled = WebAssembly.compileStreaming(fetch('worker.wasm'));
chrome.runtime.onMessage.addListener((message, _sender, sendResponse) => {
  Promise.all([compiled, chrome.storage.local.get('settings')]).then(([, { settings }]) => {
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
