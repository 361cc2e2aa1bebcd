// Signing in to MCP servers through chrome.identity, end to end: the built extension in
// Chromium, real authorization servers on loopback, the popup's Sign in / Sign out and the
// chat's tool card that meets a 401.
import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { openChat } from './chat_page.mjs';
import { screenshot, stopServiceWorkers } from './harness.mjs';
import { startSdkOAuth } from './servers.mjs';
import { startOidc, fillOidcPages } from './oauth_servers.mjs';
import { textChunks, functionCallChunk } from '../fixtures/fake-gemini/server.mjs';

let chat;
let sdk;
let oidc;

before(async () => {
  sdk = await startSdkOAuth();
  oidc = await startOidc();
  chat = await openChat();
});
after(async () => {
  await chat?.close();
  await sdk?.stop();
  await oidc?.stop();
});
beforeEach(() => chat.fake.reset());

async function openPopup() {
  const page = await chat.browser.context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(chat.browser.url('popup.html'));
  await page.getByTestId('worker-status').and(page.locator('[data-state="ok"]')).waitFor();
  page.errors = errors;
  return page;
}

/** Everything the extension keeps in chrome.storage.local, as one string. */
const storedText = (page) => page.evaluate(async () => JSON.stringify(await chrome.storage.local.get(null)));

/** The last turn's function responses the fake received. */
function lastFunctionResponse() {
  const requests = chat.chatRequests();
  const turn = requests[requests.length - 1].body.contents.at(-1);
  return turn.parts.map((p) => p.functionResponse).find(Boolean);
}

async function greetThroughChat(name) {
  chat.fake.script([
    { chunks: [functionCallChunk([{ name: 'mcp_greeter_greet', args: { name } }])] },
    { chunks: textChunks(`Greeted ${name}.`) },
  ]);
  await chat.send(`Greet ${name}`);
}

/** Asks the oidc server who the token is for, through a chat turn; the tool's answer. */
async function whoamiThroughChat(label) {
  chat.fake.script([
    { chunks: [functionCallChunk([{ name: 'mcp_accounts_whoami', args: {} }])] },
    { chunks: textChunks(`Asked ${label}.`) },
  ]);
  await chat.send(`Who am I? (${label})`);
  await chat.lastReply().filter({ hasText: `Asked ${label}.` }).waitFor({ timeout: 20_000 });
  return JSON.stringify(lastFunctionResponse().response);
}

const countEvents = async (kind, predicate = () => true) =>
  (await oidc.events()).filter((e) => e.kind === kind && predicate(e)).length;

test('a server behind OAuth: Test says sign-in is needed, Sign in in the popup, tools and a chat call with the token, a worker restart, Sign out', async () => {
  const popup = await openPopup();
  await popup.getByTestId('add-server').click();
  await popup.getByLabel('Name', { exact: true }).fill('Greeter');
  await popup.getByLabel('URL', { exact: true }).fill(sdk.url);
  await popup.getByTestId('test-connection').click();
  const result = popup.getByTestId('test-result');
  await result.locator('[data-state="sign-in"]').waitFor({ timeout: 20_000 });
  assert.match(await result.innerText(), /needs sign-in\. Save it, then press Sign in/);
  await screenshot(popup, 'oauth-test-needs-sign-in');

  await popup.getByTestId('save-server').click();
  const row = popup.locator('[data-testid="server-row"][data-name="Greeter"]');
  await row.and(popup.locator('[data-state="sign-in"]')).waitFor({ timeout: 20_000 });
  assert.equal(await row.getByTestId('signed-in').count(), 0);
  await screenshot(popup, 'oauth-popup-needs-sign-in');

  // The SDK's authorization server approves at once: the sign-in window opens and closes.
  await row.getByTestId('sign-in').click();
  await row.getByTestId('signed-in').or(row.locator('[data-testid="sign-in-note"][data-state="failed"]'))
    .waitFor({ timeout: 20_000 });
  assert.equal(await row.getByTestId('sign-in-note').count(), 0, await row.innerText());
  assert.match(await row.getByTestId('signed-in').innerText(), /^Signed in at localhost · mcp:tools$/);
  await row.and(popup.locator('[data-state="ready"]')).waitFor({ timeout: 20_000 });
  assert.match(await row.getByTestId('tool-count').innerText(), /\d+ tools?/);
  await screenshot(popup, 'oauth-popup-signed-in');

  // The token is in the worker's storage and in no page message.
  const stored = JSON.parse(await storedText(popup));
  const [key] = Object.keys(stored).filter((k) => k.startsWith('oauth_credentials:'));
  const token = stored[key].accessToken;
  assert.ok(token?.length > 10, 'an access token is kept');
  const listed = await popup.evaluate(() => chrome.runtime.sendMessage({ id: 1, request: { type: 'list_servers' } }));
  assert.ok(!JSON.stringify(listed).includes(token), 'list_servers carries no token');
  const exported = await popup.evaluate(() => chrome.runtime.sendMessage({ id: 2, request: { type: 'export_settings', include_secrets: true } }));
  assert.ok(!JSON.stringify(exported).includes(token), 'an export with secrets carries no token');

  // A chat tool call goes out with the token.
  const id = key.slice('oauth_credentials:'.length);
  await chat.request({ type: 'edit_settings', edit: { type: 'set_trust', id, trust: true } });
  await chat.reload();
  await greetThroughChat('OAuth');
  await chat.lastReply().filter({ hasText: 'Greeted OAuth.' }).waitFor({ timeout: 20_000 });
  assert.match(JSON.stringify(lastFunctionResponse().response), /Hello, OAuth/);

  // A stopped worker comes back signed in.
  await stopServiceWorkers(chat.page);
  await greetThroughChat('again');
  await chat.lastReply().filter({ hasText: 'Greeted again.' }).waitFor({ timeout: 20_000 });
  assert.match(JSON.stringify(lastFunctionResponse().response), /Hello, again/);
  assert.equal(await chat.page.getByTestId('tool-card').last().getAttribute('data-state'), 'done');

  // Sign out: the server needs sign-in again and the token is gone.
  await popup.reload();
  await popup.getByTestId('worker-status').and(popup.locator('[data-state="ok"]')).waitFor();
  await row.getByTestId('sign-out').click();
  await row.and(popup.locator('[data-state="sign-in"]')).waitFor({ timeout: 20_000 });
  assert.equal(await row.getByTestId('signed-in').count(), 0);
  assert.ok(!(await storedText(popup)).includes(token), 'the token is forgotten');
  await screenshot(popup, 'oauth-popup-signed-out');

  // The chat's card meets the 401, offers Sign in, and the call runs once signed in.
  await chat.reload();
  await greetThroughChat('card');
  const card = chat.page.getByTestId('tool-card').last();
  await card.and(chat.page.locator('[data-state="sign-in"]')).waitFor({ timeout: 20_000 });
  assert.match(await card.innerText(), /Greeter needs you to sign in/);
  await chat.shoot('oauth-card-needs-sign-in');
  await card.getByRole('button', { name: 'Sign in to Greeter' }).click();
  await chat.lastReply().filter({ hasText: 'Greeted card.' }).waitFor({ timeout: 20_000 });
  assert.equal(await card.getAttribute('data-state'), 'done');
  assert.match(JSON.stringify(lastFunctionResponse().response), /Hello, card/);
  await chat.shoot('oauth-card-signed-in');

  assert.deepEqual(popup.errors, []);
  await popup.close();
  await chat.removeServer(id);
});

test('a server never signed in: the chat notice offers Sign in, then sends the turn again with its tools', async () => {
  const id = `srv_${Math.random().toString(16).slice(2, 10)}`;
  await chat.request({ type: 'edit_settings', edit: { type: 'add_server', id, server: { name: 'Secured', url: sdk.url } } });
  await chat.request({ type: 'edit_settings', edit: { type: 'set_trust', id, trust: true } });
  await chat.reload();
  const declared = (req) => (req.body.tools ?? []).flatMap((t) => t.functionDeclarations ?? []).map((d) => d.name);

  chat.fake.script([{ chunks: textChunks('Without the greeter.') }]);
  await chat.send('Greet the notice');
  await chat.lastReply().filter({ hasText: 'Without the greeter.' }).waitFor({ timeout: 20_000 });
  assert.ok(!declared(chat.chatRequests().at(-1)).includes('mcp_secured_greet'), 'no tools before the sign-in');
  const notice = chat.page.getByTestId('sign-in-notice');
  await notice.and(chat.page.locator('[data-state="offered"]')).waitFor({ timeout: 20_000 });
  assert.match(await notice.innerText(), /“Secured” wait for you to sign in/);
  await chat.shoot('notice-needs-sign-in');

  // The SDK's authorization server approves at once: the window opens and closes.
  await notice.getByTestId('notice-sign-in').click();
  await notice.and(chat.page.locator('[data-state="signed-in"]')).waitFor({ timeout: 20_000 });
  assert.match(await notice.getByTestId('signed-in').innerText(), /Signed in to Secured/);
  await chat.shoot('notice-signed-in');

  // One click sends the turn again, now with the server's tools.
  chat.fake.script([
    { chunks: [functionCallChunk([{ name: 'mcp_secured_greet', args: { name: 'notice' } }])] },
    { chunks: textChunks('Greeted notice.') },
  ]);
  const before = chat.chatRequests().length;
  await notice.getByTestId('notice-retry').click();
  await chat.lastReply().filter({ hasText: 'Greeted notice.' }).waitFor({ timeout: 20_000 });
  assert.ok(declared(chat.chatRequests()[before]).includes('mcp_secured_greet'), 'the retried turn declares the tools');
  assert.match(JSON.stringify(lastFunctionResponse().response), /Hello, notice/);
  // The retry is a new version of the same message: the first answer is kept as version 1.
  assert.equal(chat.chatRequests()[before].body.contents.at(-1).parts[0].text.includes('Greet the notice'), true);
  assert.equal(await chat.page.getByTestId('sign-in-notice').count(), 0);
  await chat.removeServer(id);
});

test('oidc-provider: login and consent in the browser sign-in window, a silent refresh of an expired token, a revoked grant back to needs sign-in, Sign out', async () => {
  const popup = await openPopup();
  await popup.getByTestId('add-server').click();
  await popup.getByLabel('Name', { exact: true }).fill('Accounts');
  await popup.getByLabel('URL', { exact: true }).fill(oidc.mcpUrl);
  await popup.getByTestId('test-connection').click();
  await popup.getByTestId('test-result').locator('[data-state="sign-in"]').waitFor({ timeout: 20_000 });
  await popup.getByTestId('save-server').click();
  const row = popup.locator('[data-testid="server-row"][data-name="Accounts"]');
  await row.and(popup.locator('[data-state="sign-in"]')).waitFor({ timeout: 20_000 });

  // The sign-in window shows the provider's own pages; the popup says what it waits for.
  const [authWindow] = await Promise.all([
    chat.browser.context.waitForEvent('page', { timeout: 20_000 }),
    row.getByTestId('sign-in').click(),
  ]);
  await row.locator('[data-testid="sign-in-note"][data-state="running"]').waitFor();
  await screenshot(popup, 'oauth-oidc-popup-signing-in');
  await authWindow.locator('input[name="login"]').waitFor({ timeout: 20_000 });
  await screenshot(authWindow, 'oauth-oidc-login-page');
  const { prompts, closed } = await fillOidcPages(authWindow, { login: 'alice' });
  assert.deepEqual(prompts, ['login', 'consent']);
  assert.ok(closed, 'the sign-in window closes at the redirect');
  await row.getByTestId('signed-in').or(row.locator('[data-testid="sign-in-note"][data-state="failed"]'))
    .waitFor({ timeout: 20_000 });
  assert.equal(await row.getByTestId('sign-in-note').count(), 0, await row.innerText());
  assert.match(await row.getByTestId('signed-in').innerText(), /^Signed in at 127\.0\.0\.1 · .*mcp:tools/);
  await row.and(popup.locator('[data-state="ready"]')).waitFor({ timeout: 20_000 });
  assert.match(await row.getByTestId('tool-count').innerText(), /^3 tools$/);
  await screenshot(popup, 'oauth-oidc-popup-signed-in');

  const stored = JSON.parse(await storedText(popup));
  const [key] = Object.keys(stored).filter((k) => k.startsWith('oauth_credentials:') && stored[k].serverUrl === oidc.mcpUrl);
  const id = key.slice('oauth_credentials:'.length);
  assert.ok(stored[key].refreshToken, 'offline access gave a refresh token');
  await chat.request({ type: 'edit_settings', edit: { type: 'set_trust', id, trust: true } });
  await chat.reload();

  // A chat call carries alice's token.
  assert.match(await whoamiThroughChat('first'), /alice/);

  // The worker is stopped; the next call still works with the kept token.
  await stopServiceWorkers(chat.page);
  assert.match(await whoamiThroughChat('after restart'), /alice/);

  // The server expires every token: the next call is refused once, refreshed silently, retried.
  const refreshesBefore = await countEvents('token', (e) => e.grantType === 'refresh_token');
  await oidc.expireTokens();
  assert.match(await whoamiThroughChat('after expiry'), /alice/);
  assert.equal(await countEvents('token', (e) => e.grantType === 'refresh_token'), refreshesBefore + 1);
  assert.equal(await chat.page.getByTestId('tool-card').last().getAttribute('data-state'), 'done');
  await chat.shoot('oauth-oidc-refreshed');

  // Every grant revoked: the refresh fails and the card asks for a sign-in.
  await oidc.revoke();
  await oidc.expireTokens();
  chat.fake.script([
    { chunks: [functionCallChunk([{ name: 'mcp_accounts_whoami', args: {} }])] },
    { chunks: textChunks('Asked after revocation.') },
  ]);
  await chat.send('Who am I now?');
  const card = chat.page.getByTestId('tool-card').last();
  await card.and(chat.page.locator('[data-state="sign-in"]')).waitFor({ timeout: 20_000 });
  await chat.shoot('oauth-oidc-revoked');
  await popup.reload();
  await row.and(popup.locator('[data-state="sign-in"]')).waitFor({ timeout: 20_000 });
  await screenshot(popup, 'oauth-oidc-popup-revoked');

  // Signing in from the card: the provider's session lasts, so only its consent page shows.
  const [again] = await Promise.all([
    chat.browser.context.waitForEvent('page', { timeout: 20_000 }),
    card.getByRole('button', { name: 'Sign in to Accounts' }).click(),
  ]);
  assert.deepEqual((await fillOidcPages(again)).prompts, ['consent']);
  await chat.lastReply().filter({ hasText: 'Asked after revocation.' }).waitFor({ timeout: 20_000 });
  assert.equal(await card.getAttribute('data-state'), 'done');
  assert.match(JSON.stringify(lastFunctionResponse().response), /alice/);

  // Sign out revokes the refresh token at the provider and returns to needs sign-in.
  await popup.reload();
  await row.getByTestId('sign-out').click();
  await row.and(popup.locator('[data-state="sign-in"]')).waitFor({ timeout: 20_000 });
  assert.ok(await countEvents('revocation') >= 1, JSON.stringify(await oidc.events()));
  assert.ok(!(await storedText(popup)).includes(stored[key].refreshToken), 'the tokens are forgotten');
  await screenshot(popup, 'oauth-oidc-popup-signed-out');

  assert.deepEqual(popup.errors, []);
  await popup.close();
  await chat.removeServer(id);
});
