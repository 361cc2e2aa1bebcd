// Authorization servers on loopback for the browser tests, and a person in front of their pages.
//
//   const oidc = await startOidc();          // oidc-provider + an MCP server that checks its tokens
//   oidc.issuer                               // http://127.0.0.1:<port>
//   oidc.mcpUrl                               // http://127.0.0.1:<port>/mcp (add this server)
//   await oidc.expireTokens();                // every access token so far is expired at the server
//   await oidc.revoke();                      // every grant revoked: refresh fails, needs sign-in
//   await oidc.events();                      // what both servers saw (never a token)
//   await oidc.stop();
//
//   startOidc({ accessTokenTtl: 30 })         // short-lived access tokens (seconds)
//   startOidc({ autoApprove: 'alice' })       // no login or consent page: every sign-in approved
//   startOidc({ dpop: 'nonce' })              // DPoP with nonces at both servers ('on' by
//                                             // default, as oidc-provider; or 'off')
//   startOidc({ cors: 'default' })            // oidc-provider's own CORS policy, which refuses
//                                             // an extension's Origin at the token endpoint
//
// The window `chrome.identity.launchWebAuthFlow({interactive: true})` opens is a new page of the
// Playwright context; fill the provider's login and consent pages there:
//
//   const [authWindow] = await Promise.all([context.waitForEvent('page'), signInButton.click()]);
//   const { prompts } = await fillOidcPages(authWindow, { login: 'alice' });
//   // prompts: ['login', 'consent'] the first time; ['consent'] while the provider's session
//   // lasts; [] with autoApprove. The window closes itself once the provider redirects to
//   // https://<id>.chromiumapp.org/oauth.
//
// The fixture is tests/fixtures/oidc/server.mjs (see its header for the admin endpoints).
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { freePort, waitForListening } from './servers.mjs';

const testsDir = fileURLToPath(new URL('..', import.meta.url));
const node = fileURLToPath(new URL('../node_modules/.bin/node', import.meta.url));
const loopback = new URL('../fixtures/mcp/loopback.mjs', import.meta.url).href;
const script = fileURLToPath(new URL('../fixtures/oidc/server.mjs', import.meta.url));

/**
 * oidc-provider (dynamic registration, PKCE S256, resource indicators with JWT access tokens,
 * rotating refresh tokens, `iss` in the response, revocation) and a test MCP server on the
 * official SDK that accepts only its tokens (tools `whoami`, `echo`, and `admin_report`, which
 * needs the scope `mcp:admin`).
 */
export async function startOidc({ accessTokenTtl = 3600, autoApprove, dpop = 'on', cors = 'extension' } = {}) {
  for (let attempt = 1; attempt <= 5; attempt += 1) {
    const server = await tryStartOidc({ accessTokenTtl, autoApprove, dpop, cors });
    if (server) return server;
  }
  throw new Error('the oidc fixture did not start: its ports stayed taken');
}

async function tryStartOidc({ accessTokenTtl, autoApprove, dpop, cors }) {
  const [oidcPort, mcpPort] = [await freePort(), await freePort()];
  const env = {
    ...process.env,
    OIDC_PORT: String(oidcPort),
    MCP_PORT: String(mcpPort),
    OIDC_ACCESS_TOKEN_TTL: String(accessTokenTtl),
    OIDC_DPOP: dpop,
    OIDC_CORS: cors,
    GEMIPANEL_TEST_LISTENS: '2',
  };
  delete env.GEMIPANEL_TEST_PORT;
  if (autoApprove) env.OIDC_AUTO_APPROVE = autoApprove;
  const child = spawn(node, ['--import', loopback, script], { cwd: testsDir, env, stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  child.stderr.on('data', (d) => { log = (log + d).slice(-4000); });
  try {
    if (!(await waitForListening(child))) return null;
  } catch (err) {
    child.kill();
    throw new Error(`the oidc fixture did not start: ${err.message}\n${log}`);
  }
  const admin = `http://127.0.0.1:${mcpPort}/admin`;
  const post = async (path) => {
    const response = await fetch(`${admin}/${path}`, { method: 'POST' });
    if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
    return response.json();
  };
  return {
    issuer: `http://127.0.0.1:${oidcPort}`,
    mcpUrl: `http://127.0.0.1:${mcpPort}/mcp`,
    log: () => log,
    /** Revokes every grant: refresh tokens die, and the MCP server refuses their access tokens. */
    revoke: () => post('revoke'),
    /** Every access token issued so far counts as expired at the MCP server (the next refresh works). */
    expireTokens: () => post('expire'),
    /** The clients registered for machines: { clientId, clientSecret, keyClientId, privateKeyPem }. */
    machine: async () => (await fetch(`${admin}/machine`)).json(),
    /** What the provider and the MCP server saw, oldest first. */
    events: async () => (await fetch(`${admin}/events`)).json(),
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill();
      await exited;
    },
  };
}

/**
 * Goes through oidc-provider's login and consent pages in `page` as a person would: types the
 * login and a password, presses Sign-in, then Continue on each consent page, until the page
 * closes (an auth window of `launchWebAuthFlow`) or its URL satisfies `until` (a redirect URI
 * the test serves). Returns { prompts, closed, landed }: the pages shown, in order.
 */
export async function fillOidcPages(page, { login = 'alice', password = 'any password', until, timeoutMs = 15_000 } = {}) {
  const prompts = [];
  const deadline = Date.now() + timeoutMs;
  let handled;
  for (;;) {
    if (page.isClosed()) return { prompts, closed: true };
    const url = page.url();
    if (until?.(url)) return { prompts, closed: false, landed: url };
    if (Date.now() > deadline) {
      throw new Error(`no redirect back within ${timeoutMs} ms (pages ${prompts.join(', ') || 'none'}; at ${url})`);
    }
    // Each page of an interaction has its own URL: one seen before is still being left.
    const prompt = url === handled ? null : await promptOf(page);
    if (prompt) {
      handled = url;
      prompts.push(prompt);
      await submit(page, prompt, login, password);
    } else {
      await page.waitForTimeout(50).catch(() => {});
    }
  }
}

/** The `prompt` of the page's form (`login` or `consent`), or null while there is none. */
async function promptOf(page) {
  try {
    return await page.locator('form input[type="hidden"][name="prompt"]').first().getAttribute('value', { timeout: 250 });
  } catch {
    return null;
  }
}

async function submit(page, prompt, login, password) {
  try {
    if (prompt === 'login') {
      await page.locator('input[name="login"]').fill(login);
      await page.locator('input[name="password"]').fill(password);
    }
    await page.locator('form button[type="submit"]').click({ noWaitAfter: true });
  } catch (error) {
    // The window may close under the click once the provider redirects out of it.
    if (!page.isClosed()) throw error;
  }
}
