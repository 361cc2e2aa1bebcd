// The JavaScript half of browser/src/vault.rs: a passphrase stretched into an AES-GCM key with
// PBKDF2-SHA256, and strings sealed and opened with it (WebCrypto).

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** The 32 key bytes PBKDF2-SHA256 makes of `passphrase` with `salt` and `iterations`. */
export async function vaultDerive(passphrase, salt, iterations) {
  const base = await crypto.subtle.importKey('raw', encoder.encode(passphrase), 'PBKDF2', false, ['deriveBits']);
  const bits = await crypto.subtle.deriveBits({ name: 'PBKDF2', hash: 'SHA-256', salt, iterations }, base, 256);
  return new Uint8Array(bits);
}

function aesKey(raw, usage) {
  return crypto.subtle.importKey('raw', raw, 'AES-GCM', false, [usage]);
}

/** `text` sealed with the key bytes `raw`: `[iv, ciphertext]` (a fresh 96-bit IV). */
export async function vaultSeal(raw, text) {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const sealed = await crypto.subtle.encrypt({ name: 'AES-GCM', iv }, await aesKey(raw, 'encrypt'), encoder.encode(text));
  return [iv, new Uint8Array(sealed)];
}

/** The text of a sealed value; rejects when `raw` is not the key it was sealed with. */
export async function vaultOpen(raw, iv, ciphertext) {
  const opened = await crypto.subtle.decrypt({ name: 'AES-GCM', iv }, await aesKey(raw, 'decrypt'), ciphertext);
  return decoder.decode(opened);
}
