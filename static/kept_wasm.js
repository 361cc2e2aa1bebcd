// A wasm module kept in Cache Storage under its build's hash, for the worker and the side panel
// to start from: Chrome reads an extension's own files slowly (about 10 ms for the worker's
// module, 15 for the panel's), the Cache API two to three times faster, and that read is on the
// path of a stopped worker's first answer and of the panel's open (`cargo xtask bench`). A new
// build is never started from an old build's copy, and keeps no copy of another build.

const CACHE = 'gemipanel-wasm';

// Each module's hash in this build, written by `cargo xtask dist`.
const BUILDS = {
  'background_bg.wasm': '%WASM_BUILD:background_bg.wasm%',
  'sidepanel_bg.wasm': '%WASM_BUILD:sidepanel_bg.wasm%',
};

/** The key of module `file` of this build: the Cache API keys by http(s) URL, and `.invalid`
 * never resolves. */
export const keyOf = (file) => `https://gemipanel.invalid/${BUILDS[file]}/${file}`;

/** Module `file` as a response: the copy kept for this build (`kept`), else the file at `url`,
 * kept for the next start. Storage that does not answer within `patienceMs` (a busy disk) is
 * not waited for. */
export async function keptOrFile(file, url, patienceMs) {
  const late = new Promise((resolve) => setTimeout(resolve, patienceMs, null));
  const hit = (async () => (await (await caches.open(CACHE)).match(keyOf(file))) ?? null)()
    .catch(() => null);
  const kept = await Promise.race([hit, late]);
  return kept ? { response: kept, kept: true } : { response: await fileKept(file, url), kept: false };
}

/** The file at `url` as a response, kept as module `file`'s copy: it replaces a copy that did not
 * start, and the copies of other builds go. */
export async function fileKept(file, url) {
  const response = await fetch(url);
  const copy = response.clone();
  caches.open(CACHE)
    .then((cache) => cache.put(keyOf(file), copy))
    .then(dropOtherBuilds)
    .catch(() => {});
  return response;
}

/** Drops every copy whose key is not one of this build's: an updated module's old copy, whether
 * the worker or the panel keeps a copy first, and the copy of a module this build no longer
 * has. */
export async function dropOtherBuilds() {
  const current = new Set(Object.keys(BUILDS).map(keyOf));
  const cache = await caches.open(CACHE);
  const keys = await cache.keys();
  await Promise.all(keys.filter((k) => !current.has(k.url)).map((k) => cache.delete(k)));
}
