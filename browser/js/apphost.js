// Loads the MCP Apps host module (dist/wasm/apphost.js) the first time a chat shows an app.
let loading = null;

function load() {
  loading ??= import(chrome.runtime.getURL('wasm/apphost.js')).then(async (module) => {
    await module.default();
    return module;
  });
  return loading;
}

/**
 * Gets ready for an app about to be shown: loads the module, and keeps one hidden sandbox page
 * open for the rest of the panel's life. Chrome runs sandboxed frames in a process of their
 * own; with one alive, the next app's frames start in it instead of waiting for a new process
 * (half of a large app's start, measured by tests/bench/app_load.mjs).
 */
export function warmUp() {
  load().catch(() => {});
  if (document.querySelector('iframe[data-warm-sandbox]')) return;
  const frame = document.createElement('iframe');
  frame.src = 'sandbox.html';
  frame.dataset.warmSandbox = '';
  frame.setAttribute('aria-hidden', 'true');
  frame.tabIndex = -1;
  frame.style.cssText = 'position:absolute;width:0;height:0;border:0;visibility:hidden';
  document.body.append(frame);
}

/** Shows an app in `container`; resolves to its view (see apphost/src/lib.rs). */
export async function mountApp(container, setup, host) {
  const { AppView } = await load();
  return new AppView(container, setup, host);
}
