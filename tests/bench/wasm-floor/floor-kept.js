// The floor's modules compiled from a copy in Cache Storage, the fastest read an extension has
// of its own wasm (static/kept_wasm.js in GemiPanel); the first start reads the file and keeps it.
export async function compileKept(file) {
  const key = `https://floor.invalid/${file}`;
  const cache = await caches.open('floor');
  const hit = await cache.match(key);
  if (hit) return WebAssembly.compileStreaming(hit);
  const response = await fetch(file);
  await cache.put(key, response.clone());
  return WebAssembly.compileStreaming(response);
}
