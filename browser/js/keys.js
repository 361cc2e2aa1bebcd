// The JavaScript half of browser/src/keys.rs: ECDSA P-256 keys through WebCrypto.
//
// A server's DPoP key pair is made non-extractable and kept in IndexedDB as the CryptoKey
// objects themselves (IndexedDB stores them by structured clone): the private key never exists
// as bytes anywhere, not even here. A client's private_key_jwt key arrives as PKCS #8 bytes from
// the settings and is imported non-extractable for the one signature.

const DB_NAME = 'gemipanel-keys';
const STORE = 'dpop';
const ALGORITHM = { name: 'ECDSA', namedCurve: 'P-256' };
const SIGNING = { name: 'ECDSA', hash: 'SHA-256' };

// Key pairs read or made during this worker's life, by server id.
const pairs = new Map();
let database = null;

function request(req) {
  return new Promise((resolve, reject) => {
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
}

async function db() {
  if (!database) {
    const opening = indexedDB.open(DB_NAME, 1);
    opening.onupgradeneeded = () => opening.result.createObjectStore(STORE);
    database = request(opening).catch((error) => {
      database = null;
      throw error;
    });
  }
  return database;
}

async function store(mode) {
  return (await db()).transaction(STORE, mode).objectStore(STORE);
}

/** The public key's coordinates, base64url: `{x, y}`. */
async function publicPart(pair) {
  const { x, y } = await crypto.subtle.exportKey('jwk', pair.publicKey);
  return { x, y };
}

/**
 * The DPoP key of server `id` as `{x, y}`: the kept one, else (with `create`) a new one, kept
 * before it is handed out; null when there is none and none is to be made.
 */
export async function dpopKey(id, create) {
  let pair = pairs.get(id) ?? (await request((await store('readonly')).get(id)));
  if (!pair && create) {
    pair = await crypto.subtle.generateKey(ALGORITHM, false, ['sign', 'verify']);
    await request((await store('readwrite')).put(pair, id));
  }
  if (!pair) return null;
  pairs.set(id, pair);
  return publicPart(pair);
}

/** The ES256 signature (`r || s`) of `bytes` with server `id`'s DPoP key. */
export async function dpopSign(id, bytes) {
  const pair = pairs.get(id) ?? (await request((await store('readonly')).get(id)));
  if (!pair) throw new Error('this server has no DPoP key any more');
  pairs.set(id, pair);
  return new Uint8Array(await crypto.subtle.sign(SIGNING, pair.privateKey, bytes));
}

/** Forgets server `id`'s DPoP key. */
export async function dpopDelete(id) {
  pairs.delete(id);
  await request((await store('readwrite')).delete(id));
}

/** The ids of every server with a DPoP key. */
export async function dpopIds() {
  return (await request((await store('readonly')).getAllKeys())).map(String);
}

/** The ES256 signature of `bytes` with a private key given as PKCS #8 bytes. */
export async function signPkcs8(pkcs8, bytes) {
  const key = await crypto.subtle.importKey('pkcs8', pkcs8, ALGORITHM, false, ['sign']);
  return new Uint8Array(await crypto.subtle.sign(SIGNING, key, bytes));
}
