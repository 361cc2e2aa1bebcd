// Sign-in's keys and leftovers end to end, the built extension against oidc-provider:
// DPoP-bound tokens with nonces at both servers (a key the worker cannot hand out, a token
// copied out of storage refused without it), a removed server's tokens gone with it even when
// the worker slept, orphans of an unfinished removal cleaned at start, and an authorization
// server with oidc-provider's default CORS policy, which refuses an extension's Origin.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch, screenshot, stopServiceWorkers } from './harness.mjs';
import { startOidc } from './oauth_servers.mjs';

let browser;
let popup;
let nextId = 1;
const fixtures = [];

before(async () => {
  browser = await launch();
  popup = await browser.context.newPage();
  popup.errors = [];
  popup.on('pageerror', (e) => popup.errors.push(e.message));
  await openPopup();
});
after(async () => {
  await browser?.close();
  await Promise.all(fixtures.map((f) => f.stop()));
});

async function openPopup() {
  await popup.goto(browser.url('popup.html'));
  await popup.getByTestId('worker-status').and(popup.locator('[data-state="ok"]')).waitFor();
}

async function oidc(options) {
  const started = await startOidc(options);
  fixtures.push(started);
  return started;
}

async function request(req) {
  const reply = await popup.evaluate((m) => chrome.runtime.sendMessage(m), { id: nextId++, request: req });
  assert.equal(reply?.kind, 'response', JSON.stringify(reply));
  return reply.response;
}

const stored = () => popup.evaluate(() => chrome.storage.local.get(null));

/**
 * The extension's DPoP key pairs in IndexedDB (the worker's store; pages share its origin):
 * `ids` lists them, `describe` tells what one can be made to give out, `plant` puts a fresh
 * one under an id.
 */
function keys(op, id) {
  return popup.evaluate(async ({ op, id }) => {
    const db = await new Promise((resolve, reject) => {
      const open = indexedDB.open('gemipanel-keys', 1);
      open.onupgradeneeded = () => open.result.createObjectStore('dpop');
      open.onsuccess = () => resolve(open.result);
      open.onerror = () => reject(open.error);
    });
    const run = (mode, act) => new Promise((resolve, reject) => {
      const r = act(db.transaction('dpop', mode).objectStore('dpop'));
      r.onsuccess = () => resolve(r.result);
      r.onerror = () => reject(r.error);
    });
    try {
      if (op === 'ids') return (await run('readonly', (s) => s.getAllKeys())).map(String);
      if (op === 'plant') {
        const pair = await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, false, ['sign']);
        return await run('readwrite', (s) => s.put(pair, id));
      }
      const pair = await run('readonly', (s) => s.get(id));
      const exported = await crypto.subtle.exportKey('pkcs8', pair.privateKey).then(() => 'exported', (e) => e.name);
      const jwk = await crypto.subtle.exportKey('jwk', pair.publicKey);
      return { extractable: pair.privateKey.extractable, exported, crv: jwk.crv, d: jwk.d ?? null };
    } finally {
      db.close();
    }
  }, { op, id });
}
const keyIds = () => keys('ids');

async function until(what, check, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

function randomId() {
  return `srv_${[...crypto.getRandomValues(new Uint8Array(8))].map((b) => b.toString(16).padStart(2, '0')).join('')}`;
}

/** Adds a server and signs in from its row (the provider approves at once); the row. */
async function addAndSignIn(name, url) {
  const id = randomId();
  const added = await request({ type: 'edit_settings', edit: { type: 'add_server', id, server: { name, url } } });
  assert.equal(added.type, 'settings', JSON.stringify(added));
  await openPopup();
  const row = popup.locator(`[data-testid="server-row"][data-name="${name}"]`);
  await row.and(popup.locator('[data-state="sign-in"]')).waitFor({ timeout: 20_000 });
  await row.getByTestId('sign-in').click();
  await row.getByTestId('signed-in').or(row.locator('[data-testid="sign-in-note"][data-state="failed"]'))
    .waitFor({ timeout: 20_000 });
  assert.equal(await row.getByTestId('sign-in-note').count(), 0, await row.innerText());
  await row.and(popup.locator('[data-state="ready"]')).waitFor({ timeout: 20_000 });
  return { id, row };
}

/** `tools/list` sent to the MCP server from outside the extension, as someone holding a copied token would. */
async function toolsListWith(url, headers) {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      'MCP-Protocol-Version': '2025-06-18',
      ...headers,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  });
  return response.status;
}

test('DPoP with nonces at both servers: tokens bound to a key the worker cannot give out, a copied token refused, one retry per nonce', async () => {
  const server = await oidc({ dpop: 'nonce', autoApprove: 'alice' });
  const { id, row } = await addAndSignIn('Bound', server.mcpUrl);
  assert.match(await row.getByTestId('tool-count').innerText(), /^3 tools$/);
  await screenshot(popup, 'oauth-dpop-signed-in');

  const credentials = (await stored())[`oauth_credentials:${id}`];
  assert.ok(credentials?.dpopJkt, `the tokens are bound: ${JSON.stringify(Object.keys(credentials ?? {}))}`);
  // The key pair is in IndexedDB as CryptoKeys; its private half cannot be exported.
  const key = await keys('describe', id);
  assert.deepEqual(key, { extractable: false, exported: 'InvalidAccessError', crv: 'P-256', d: null });

  // Each server asked once for its nonce and was answered with it.
  const events = await server.events();
  const codes = events.filter((e) => e.kind === 'token' && e.grantType === 'authorization_code');
  assert.deepEqual(codes.map((e) => [e.status, e.error ?? e.tokenType, e.hadProof]),
    [[400, 'use_dpop_nonce', true], [200, 'DPoP', true]], JSON.stringify(codes));
  const proofs = events.filter((e) => e.kind === 'mcp' && e.dpop).map((e) => e.dpop);
  assert.equal(proofs[0], 'nonce required', JSON.stringify(proofs));
  assert.ok(proofs.length > 1 && proofs.slice(1).every((p) => p === 'ok'), JSON.stringify(proofs));

  // The access token copied out of storage is of no use without the key.
  const token = credentials.accessToken;
  assert.equal(await toolsListWith(server.mcpUrl, { Authorization: `Bearer ${token}` }), 401);
  assert.equal(await toolsListWith(server.mcpUrl, { Authorization: `DPoP ${token}` }), 401);

  // A worker stopped and started again finds its key and keeps using the token.
  await stopServiceWorkers(popup);
  const listed = await request({ type: 'list_tools', server_id: id, refresh: true });
  assert.equal(listed.type, 'tools', JSON.stringify(listed));
  assert.equal(listed.tools.length, 3);
  assert.deepEqual(popup.errors, []);
});

test('a server removed while the worker slept: its tokens go in the same write, are revoked, and its DPoP key is deleted', async () => {
  const server = await oidc({ autoApprove: 'bob' });
  const { id } = await addAndSignIn('Leaving', server.mcpUrl);
  const before = await stored();
  const { accessToken, refreshToken } = before[`oauth_credentials:${id}`];
  assert.ok(accessToken && refreshToken);
  assert.ok((await keyIds()).includes(id), 'a DPoP key was made for it');
  const revocations = (await server.events()).filter((e) => e.kind === 'revocation').length;

  await stopServiceWorkers(popup);
  const removed = await request({ type: 'edit_settings', edit: { type: 'remove_server', id } });
  assert.equal(removed.type, 'settings', JSON.stringify(removed));
  // As soon as the removal is answered, no token of the server is in storage.
  const after = await stored();
  assert.equal(after.settings.servers.some((s) => s.id === id), false);
  const left = after[`oauth_credentials:${id}`];
  assert.ok(left === undefined || left === null, `left behind: ${JSON.stringify(Object.keys(left ?? {}))}`);
  const text = JSON.stringify(after);
  assert.ok(!text.includes(accessToken) && !text.includes(refreshToken), 'the tokens left with the server');

  // Then the provider hears of it, the key goes, and the blank too.
  await until('the revocation', async () => (await server.events()).filter((e) => e.kind === 'revocation').length > revocations);
  await until('the DPoP key to go', async () => !(await keyIds()).includes(id));
  await until('the blank to go', async () => !(`oauth_credentials:${id}` in (await stored())));
});

test('what a removal left behind (credentials, a DPoP key, a tool list) is cleaned when the worker starts', async () => {
  const orphan = 'srv_00000000000000aa';
  const kept = await addAndSignIn('Kept', (await oidc({ autoApprove: 'dave' })).mcpUrl);
  await popup.evaluate(async (orphan) => {
    await chrome.storage.local.set({
      [`oauth_credentials:${orphan}`]: {
        serverUrl: 'http://127.0.0.1:9/mcp', issuer: 'http://127.0.0.1:9', resource: 'http://127.0.0.1:9/mcp',
        accessToken: 'ORPHANED-ACCESS', tokenEndpoint: 'http://127.0.0.1:9/token', client: { clientId: 'c', method: 'none' },
      },
      [`tools_cache:${orphan}`]: { url: 'http://127.0.0.1:9/mcp', fetchedAtMs: 1, tools: [] },
    });
    // A new browser session: the worker looks for orphans again.
    await chrome.storage.session.remove('oauth_orphans_checked');
  }, orphan);
  await keys('plant', orphan);

  await stopServiceWorkers(popup);
  assert.equal((await request({ type: 'status' })).type, 'status');
  await until('the orphaned credentials to go', async () => !(`oauth_credentials:${orphan}` in (await stored())));
  await until('the orphaned key to go', async () => !(await keyIds()).includes(orphan));
  const now = await stored();
  assert.equal(`tools_cache:${orphan}` in now, false);
  assert.ok(now[`oauth_credentials:${kept.id}`]?.accessToken, 'a configured server keeps its sign-in');
  assert.ok((await keyIds()).includes(kept.id), 'and its key');
});

test("an authorization server with oidc-provider's default CORS policy: sign-in's requests leave without Origin", async () => {
  const server = await oidc({ cors: 'default', autoApprove: 'carol' });
  const { row } = await addAndSignIn('Strict', server.mcpUrl);
  assert.match(await row.getByTestId('tool-count').innerText(), /^3 tools$/);
  const tokens = (await server.events()).filter((e) => e.kind === 'token');
  assert.ok(tokens.length >= 1 && tokens.every((e) => e.status === 200), JSON.stringify(tokens));
  assert.ok(tokens.every((e) => e.origin === undefined), `no Origin: ${JSON.stringify(tokens)}`);
  await screenshot(popup, 'oauth-default-cors-signed-in');
});
