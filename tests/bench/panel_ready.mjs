// What the side panel benchmarks share (panel_open.mjs, panel_open_profile.mjs): the document
// the panel opens on, and "ready" seen from inside the page.

/** A key, a model and five servers. */
export const SETTINGS = {
  version: 6,
  gemini: { api_key: 'AIza-bench', model: 'gemini-3.8-flash' },
  servers: Array.from({ length: 5 }, (_, i) => ({
    id: `srv_${String(i).padStart(16, '0')}`, name: `server ${i}`, url: `https://mcp${i}.example.com/mcp`,
    headers: { Authorization: 'Bearer x' }, timeout_ms: 30000, trust: false, exclude_tools: [],
    enabled_by_default: false, local_network: false, allowed_tools: [],
  })),
};

/**
 * Makes every page of `context` keep a promise of when it is ready (the composer takes typing
 * and the status line shows the worker's answer), in ms since its navigation, also marked
 * `ready`. The bench only waits on that promise: a polling wait (waitForFunction) would put
 * Playwright's injected script, about 10 ms of parsing in a new renderer, on the main thread in
 * the middle of an open.
 */
export function watchReady(context) {
  return context.addInitScript(() => {
    const ready = () => document.querySelector('[data-testid="worker-status"][data-state="ok"]')
      && document.querySelector('[data-testid="input"]');
    globalThis.__ready = new Promise((resolve) => {
      const watch = new MutationObserver(() => {
        if (!ready()) return;
        performance.mark('ready');
        resolve(performance.now());
        watch.disconnect();
      });
      watch.observe(document, { subtree: true, childList: true, attributes: true });
    });
  });
}

/** When `page`, navigated to its commit, was ready (ms since navigation); 30 s at most. */
export async function readyAt(page) {
  let late;
  const timeout = new Promise((_, fail) => {
    late = setTimeout(() => fail(new Error(`${page.url()} was not ready within 30 s`)), 30_000);
  });
  try {
    return await Promise.race([page.evaluate(() => globalThis.__ready), timeout]);
  } finally {
    clearTimeout(late);
  }
}
