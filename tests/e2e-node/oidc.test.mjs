// The oidc-provider fixture and the helpers the Chromium tests use (tests/e2e/oauth_servers.mjs):
// a real Chromium page starts an authorization request to a loopback redirect URI, fillOidcPages
// goes through the provider's login and consent pages, and the code it brings back is exchanged
// and used against the MCP server with the official SDK client. Also what the MCP server refuses,
// the helpers that expire and revoke tokens, and the redirect URIs an extension registers.
//
// Run: node --test tests/e2e-node/
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import http from 'node:http';
import { createRequire } from 'node:module';
import { SignJWT, generateKeyPair } from 'jose';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CHROMIUM } from '../e2e/harness.mjs';
import { startOidc, fillOidcPages } from '../e2e/oauth_servers.mjs';

const { chromium } = createRequire(import.meta.url)('playwright-core');

let browser;
let callback;

before(async () => {
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update'],
  });
  callback = await startCallback();
});
after(async () => {
  await browser?.close();
  await callback?.stop();
});

/**
 * A redirect URI on loopback that remembers what it got. Its page closes itself in a window a
 * script opened, as the auth window of `launchWebAuthFlow` closes at the redirect.
 */
async function startCallback() {
  const landed = [];
  const server = http.createServer((req, res) => {
    landed.push(new URL(req.url, 'http://127.0.0.1'));
    res.writeHead(200, { 'content-type': 'text/html' })
      .end('<p>signed in</p><script>if (window.opener) window.close();</script>');
  });
  await new Promise((resolve) => server.listen({ port: 0, host: '127.0.0.1' }, resolve));
  const url = `http://127.0.0.1:${server.address().port}/callback`;
  return { url, landed, stop: () => new Promise((r) => { server.closeAllConnections(); server.close(r); }) };
}

async function metadata(issuer) {
  return (await fetch(`${issuer}/.well-known/oauth-authorization-server`)).json();
}

async function register(issuer, redirectUri, applicationType = 'native') {
  const { registration_endpoint: endpoint } = await metadata(issuer);
  const response = await fetch(endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      redirect_uris: [redirectUri],
      application_type: applicationType,
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      client_name: 'e2e-node',
    }),
  });
  return { status: response.status, body: await response.json() };
}

/** An authorization request as GemiPanel sends it: PKCE S256, state, resource, offline access. */
async function authorizationRequest(oidc, clientId, scope = 'mcp:tools offline_access') {
  const verifier = crypto.randomBytes(32).toString('base64url');
  const challenge = crypto.createHash('sha256').update(verifier).digest('base64url');
  const state = crypto.randomBytes(16).toString('base64url');
  const url = new URL((await metadata(oidc.issuer)).authorization_endpoint);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: callback.url,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state,
    resource: oidc.mcpUrl,
    scope,
    prompt: 'consent',
  }).toString();
  return { url: url.href, verifier, state };
}

async function token(oidc, params) {
  const response = await fetch(`${oidc.issuer}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ resource: oidc.mcpUrl, ...params }),
  });
  return { status: response.status, body: await response.json() };
}

/** Calls `whoami` with the official SDK client; the subject, or the error thrown. */
async function whoami(mcpUrl, accessToken) {
  const transport = new StreamableHTTPClientTransport(new URL(mcpUrl), {
    requestInit: { headers: { authorization: `Bearer ${accessToken}` } },
  });
  const client = new Client({ name: 'e2e-node', version: '1.0.0' });
  try {
    await client.connect(transport);
    const result = await client.callTool({ name: 'whoami', arguments: {} });
    return result.content[0].text;
  } finally {
    await client.close().catch(() => {});
  }
}

/** Signs in through the pages in a fresh browser context; what the page went through. */
async function signInInBrowser(oidc, clientId, options = {}) {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    const request = await authorizationRequest(oidc, clientId);
    await page.goto(request.url);
    const filled = await fillOidcPages(page, { ...options, until: (u) => u.startsWith(callback.url) });
    return { ...filled, request };
  } finally {
    await context.close();
  }
}

test('a person signs in through the login and consent pages; the code is good at the MCP server', async () => {
  const oidc = await startOidc();
  try {
    const { status, body: client } = await register(oidc.issuer, callback.url);
    assert.equal(status, 201);
    const { prompts, landed, request } = await signInInBrowser(oidc, client.client_id, { login: 'dana' });
    assert.deepEqual(prompts, ['login', 'consent']);
    const answer = new URL(landed).searchParams;
    assert.equal(answer.get('state'), request.state);
    assert.equal(answer.get('iss'), oidc.issuer, 'RFC 9207: iss in the response');

    const exchanged = await token(oidc, {
      grant_type: 'authorization_code',
      code: answer.get('code'),
      redirect_uri: callback.url,
      code_verifier: request.verifier,
      client_id: client.client_id,
    });
    assert.equal(exchanged.status, 200, JSON.stringify(exchanged.body));
    assert.equal(exchanged.body.scope, 'mcp:tools');
    assert.ok(exchanged.body.refresh_token, 'offline_access with prompt=consent brings a refresh token');
    assert.equal(await whoami(oidc.mcpUrl, exchanged.body.access_token), 'dana');

    // expireTokens: the MCP server refuses the token; a refresh (rotating) gets a working one.
    await oidc.expireTokens();
    await assert.rejects(whoami(oidc.mcpUrl, exchanged.body.access_token), /401|expired|Unauthorized/i);
    const refreshed = await token(oidc, {
      grant_type: 'refresh_token',
      refresh_token: exchanged.body.refresh_token,
      client_id: client.client_id,
    });
    assert.equal(refreshed.status, 200, JSON.stringify(refreshed.body));
    assert.notEqual(refreshed.body.refresh_token, exchanged.body.refresh_token, 'rotated');
    assert.equal(await whoami(oidc.mcpUrl, refreshed.body.access_token), 'dana');

    // revoke: the refresh token and the access token of the grant are dead.
    assert.deepEqual(await oidc.revoke(), { revoked: 1 });
    const afterRevoke = await token(oidc, {
      grant_type: 'refresh_token',
      refresh_token: refreshed.body.refresh_token,
      client_id: client.client_id,
    });
    assert.equal(afterRevoke.status, 400);
    assert.equal(afterRevoke.body.error, 'invalid_grant');
    await assert.rejects(whoami(oidc.mcpUrl, refreshed.body.access_token), /401|revoked|Unauthorized/i);

    const refusals = (await oidc.events())
      .filter((e) => e.kind === 'mcp' && e.status === 401)
      .map((e) => /error_description="([^"]*)"/.exec(e.wwwAuthenticate)?.[1]);
    assert.deepEqual(refusals, ['Token has expired', 'Token was revoked']);
  } finally {
    await oidc.stop();
  }
});

test('with autoApprove no page is shown and the account is the one configured', async () => {
  const oidc = await startOidc({ autoApprove: 'erin' });
  try {
    const { body: client } = await register(oidc.issuer, callback.url);
    const { prompts, landed, request } = await signInInBrowser(oidc, client.client_id);
    assert.deepEqual(prompts, []);
    const code = new URL(landed).searchParams.get('code');
    const exchanged = await token(oidc, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: callback.url,
      code_verifier: request.verifier,
      client_id: client.client_id,
    });
    assert.equal(exchanged.status, 200, JSON.stringify(exchanged.body));
    assert.equal(await whoami(oidc.mcpUrl, exchanged.body.access_token), 'erin');
  } finally {
    await oidc.stop();
  }
});

test('in a window opened by a page, as the auth window is, the pages are filled until it closes', async () => {
  const oidc = await startOidc();
  const context = await browser.newContext();
  try {
    const { body: client } = await register(oidc.issuer, callback.url);
    const opener = await context.newPage();
    await opener.goto(callback.url);
    const request = await authorizationRequest(oidc, client.client_id);
    const [authWindow] = await Promise.all([
      context.waitForEvent('page'),
      opener.evaluate((url) => { window.open(url, 'auth', 'popup'); }, request.url),
    ]);
    const filled = await fillOidcPages(authWindow, { login: 'frank' });
    assert.deepEqual(filled, { prompts: ['login', 'consent'], closed: true });
    const answer = callback.landed.at(-1).searchParams;
    assert.equal(answer.get('state'), request.state);
    assert.equal(answer.get('iss'), oidc.issuer);
    assert.ok(answer.get('code'));
  } finally {
    await context.close();
    await oidc.stop();
  }
});

test('fillOidcPages says where it got stuck when the pages never lead back', async () => {
  const oidc = await startOidc();
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    // A client that is not registered: the provider shows an error page, no form.
    const request = await authorizationRequest(oidc, 'no-such-client');
    await page.goto(request.url);
    await assert.rejects(
      fillOidcPages(page, { until: (u) => u.startsWith(callback.url), timeoutMs: 1_500 }),
      /no redirect back within 1500 ms \(pages none; at http:\/\/127\.0\.0\.1/,
    );
  } finally {
    await context.close();
    await oidc.stop();
  }
});

test('the MCP server refuses what the provider did not issue for it, and says where to sign in', async () => {
  const oidc = await startOidc();
  try {
    const anonymous = await fetch(oidc.mcpUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    assert.equal(anonymous.status, 401);
    const challenge = anonymous.headers.get('www-authenticate');
    const metadataUrl = /resource_metadata="([^"]+)"/.exec(challenge)?.[1];
    assert.ok(metadataUrl, challenge);
    const resource = await (await fetch(metadataUrl)).json();
    assert.equal(resource.resource, oidc.mcpUrl);
    assert.deepEqual(resource.authorization_servers, [oidc.issuer]);

    // Right issuer, audience and shape, signed with a key that is not the provider's.
    const { privateKey } = await generateKeyPair('RS256');
    const forged = await new SignJWT({ scope: 'mcp:tools', client_id: 'x', gid: 'x' })
      .setProtectedHeader({ alg: 'RS256', typ: 'at+jwt', kid: 'fixture' })
      .setIssuer(oidc.issuer)
      .setAudience(oidc.mcpUrl)
      .setSubject('mallory')
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(privateKey);
    await assert.rejects(whoami(oidc.mcpUrl, forged), /401|Unauthorized|invalid_token/i);
    const refused = (await oidc.events()).filter((e) => e.kind === 'mcp' && e.hadToken);
    assert.equal(refused.length, 1);
    assert.equal(refused[0].status, 401);
    assert.match(refused[0].wwwAuthenticate, /invalid_token/);
  } finally {
    await oidc.stop();
  }
});

test('the redirect URIs of an extension are registered; a web client may not use a private scheme', async () => {
  const oidc = await startOidc();
  try {
    const web = await register(oidc.issuer, 'https://abcdefghijklmnopabcdefghijklmnop.chromiumapp.org/oauth', 'web');
    assert.equal(web.status, 201, JSON.stringify(web.body));
    assert.equal(web.body.application_type, 'web');
    const native = await register(oidc.issuer, 'chrome-extension://abcdefghijklmnopabcdefghijklmnop/oauth');
    assert.equal(native.status, 201, JSON.stringify(native.body));
    const refused = await register(oidc.issuer, 'chrome-extension://abcdefghijklmnopabcdefghijklmnop/oauth', 'web');
    assert.equal(refused.status, 400);
    assert.equal(refused.body.error, 'invalid_redirect_uri');
  } finally {
    await oidc.stop();
  }
});
