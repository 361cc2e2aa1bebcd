// A wasm module kept in Cache Storage under its build's hash, for the worker and the side panel
// to start from: Chrome reads an extension's own files slowly (about 10 ms for the worker's
// module, 15 for the panel's), the Cache API two to three times faster, and that read is on the
// path of a stopped worker's first answer and of the panel's open (`cargo xtask bench`). A new
// build is never started from an old build's copy: `cargo xtask dist` writes each module's
// hash into the script that starts it.

const CACHE = 'gemipanel-wasm';

/** The key of `file` (a module's name) of build `build`: the Cache API keys by http(s) URL, and
 * `.invalid` never resolves. */
export const keyOf = (build, file) => `https://gemipanel.invalid/${build}/${file}`;

/** The copy kept under `key`, or null: none, storage failed, or it did not answer within
 * `patienceMs` (storage that does not answer, a busy disk, must not hold a start up for long). */
export async function keptCopy(key, patienceMs) {
  const late = new Promise((resolve) => setTimeout(resolve, patienceMs, null));
  const hit = (async () => (await (await caches.open(CACHE)).match(key)) ?? null)().catch(() => null);
  return Promise.race([hit, late]);
}

/** Keeps `response` under `key`; the copies of the same module from other builds go. */
export function keep(key, response) {
  const file = key.slice(key.lastIndexOf('/'));
  caches.open(CACHE)
    .then((cache) => cache.put(key, response)
      .then(() => cache.keys())
      .then((keys) => Promise.all(keys
        .filter((k) => k.url !== key && k.url.endsWith(file))
        .map((k) => cache.delete(k)))))
    .catch(() => {});
}

/** Drops the copy under `key` (one that did not start). */
export function drop(key) {
  caches.open(CACHE).then((cache) => cache.delete(key)).catch(() => {});
}
