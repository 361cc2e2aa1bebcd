// The JavaScript half of browser/src/http.rs. Each function is one call from wasm where
// web-sys needs a call per header, per request field and per response header (about forty
// per exchange, a tenth of a millisecond of the worker's time per MCP request).
//
// Headers travel as one string, names and values separated by NUL, which HTTP forbids in
// both (the Rust side refuses any NUL before joining).

const NUL = '\0';

/**
 * Starts `fetch`; resolves to [status, headers as "name\0value\0…", body reader or null,
 * redirected]. Redirects are not followed: they would carry the request's headers (keys,
 * tokens) wherever they point. The browser hides such a redirect's status and target.
 */
export function fetchExchange(url, method, headers, body, controller) {
  const list = [];
  const parts = headers.split(NUL);
  for (let i = 0; i + 1 < parts.length; i += 2) list.push([parts[i], parts[i + 1]]);
  // Service workers of extensions keep no cookies of their own; credentials would be the
  // user's browsing cookies for that site, which an MCP server must not receive implicitly.
  const init = {
    method, headers: list, signal: controller.signal, credentials: 'omit', redirect: 'manual',
  };
  if (body !== undefined) init.body = body;
  return fetch(url, init).then((response) => {
    let head = '';
    for (const [name, value] of response.headers) head += name + NUL + value + NUL;
    const redirected = response.type === 'opaqueredirect';
    return [response.status, head, response.body ? response.body.getReader() : null, redirected];
  });
}

/** The next chunk of a body: its bytes, or null at the end. */
export function readChunk(reader) {
  return reader.read().then((chunk) => (chunk.done ? null : chunk.value));
}

/** Aborts once the current turn is over (after the reply that ended it is posted). */
export function abortSoon(controller) {
  queueMicrotask(() => controller.abort());
}
