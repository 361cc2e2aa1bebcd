// The least a worker can do to answer `get_settings`: read the stored document and send it.
chrome.runtime.onMessage.addListener((message, _sender, sendResponse) => {
  chrome.storage.local.get('settings').then(({ settings }) => {
    sendResponse({ kind: 'response', id: message?.id ?? 0, response: { type: 'settings', settings } });
  });
  return true;
});
