// Loads the MCP Apps host module (dist/wasm/apphost.js) the first time a chat shows an app.
let loading = null;

function load() {
  loading ??= import(chrome.runtime.getURL('wasm/apphost.js')).then(async (module) => {
    await module.default();
    return module;
  });
  return loading;
}

/** Shows an app in `container`; resolves to its view (see apphost/src/lib.rs). */
export async function mountApp(container, setup, host) {
  const { AppView } = await load();
  return new AppView(container, setup, host);
}
