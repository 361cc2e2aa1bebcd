// The service worker's entry. Listeners are registered synchronously, before wasm is ready, so
// the message that wakes a stopped worker is not lost; each one waits for `ready` and forwards.
import init, * as worker from './wasm/background.js';

const ready = init({ module_or_path: new URL('./wasm/background_bg.wasm', import.meta.url) })
  .then(() => worker.start());

chrome.runtime.onMessage.addListener((message, _sender, sendResponse) => {
  ready
    .then(() => worker.on_message(message))
    .then(sendResponse, (err) => sendResponse({
      kind: 'response',
      id: typeof message?.id === 'number' ? message.id : 0,
      response: { type: 'error', message: `the background worker failed: ${err}` },
    }));
  return true; // the answer is asynchronous
});

chrome.runtime.onConnect.addListener((port) => {
  // Messages that arrive while wasm is still loading wait here, in order.
  const early = [];
  let deliver = (message) => early.push(message);
  port.onMessage.addListener((message) => deliver(message));
  port.onDisconnect.addListener(() => ready.then(() => worker.on_disconnect(port)));
  ready.then(() => {
    worker.on_connect(port);
    deliver = (message) => worker.on_port_message(port, message);
    early.splice(0).forEach(deliver);
  });
});

// The keyboard shortcut from the manifest's `commands`. Chrome has no built-in command for the
// side panel, and `sidePanel.open` only counts as a user action when called synchronously here.
chrome.commands.onCommand.addListener((command, tab) => {
  if (command === 'open-side-panel' && tab) chrome.sidePanel.open({ windowId: tab.windowId });
});
