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

/** The module as a response: the copy kept under `key` (`kept`), else the file `url`, kept for
 * the next start. Storage that does not answer within `patienceMs` (a busy disk) is not waited
 * for. */
export async function keptOrFile(key, url, patienceMs) {
  const late = new Promise((resolve) => setTimeout(resolve, patienceMs, null));
  const hit = (async () => (await (await caches.open(CACHE)).match(key)) ?? null)().catch(() => null);
  const kept = await Promise.race([hit, late]);
  return kept ? { response: kept, kept: true } : { response: await fileKept(key, url), kept: false };
}

/** The file `url` as a response, kept under `key`: it replaces a copy that did not start, and
 * the copies of the same module from other builds go. */
export async function fileKept(key, url) {
  const response = await fetch(url);
  const file = key.slice(key.lastIndexOf('/'));
  const copy = response.clone();
  caches.open(CACHE)
    .then((cache) => cache.put(key, copy)
      .then(() => cache.keys())
      .then((keys) => Promise.all(keys
        .filter((k) => k.url !== key && k.url.endsWith(file))
        .map((k) => cache.delete(k)))))
    .catch(() => {});
  return response;
}
