// Starts Chromium with the built extension loaded, as a person would after "Load unpacked".
import { mkdtempSync, mkdirSync, rmSync, readFileSync, writeFileSync, cpSync, existsSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createRequire } from 'node:module';
import { assertAccessible } from './accessibility.mjs';

const require = createRequire(import.meta.url);
const { chromium } = require('playwright-core');

export const CHROMIUM = '/usr/lib/chromium/chromium';
export const dist = resolve(process.env.GEMIPANEL_DIST ?? 'dist');
export const outDir = resolve(process.env.GEMIPANEL_OUT ?? 'target/e2e');
export const extensionId = process.env.GEMIPANEL_EXTENSION_ID;
const target = process.env.CARGO_TARGET_DIR ?? resolve('target');
/** The native bridge for local servers (`cargo build -p gemipanel-bridge`; xtask builds it). */
export const bridgeBinary = process.env.GEMIPANEL_BRIDGE ?? join(target, 'debug', 'gemipanel-bridge');

/**
 * Launches a fresh profile with the extension. `options.locale` sets the UI language,
 * `options.colorScheme` the theme, `options.bridge` installs the native bridge into the profile
 * (its `NativeMessagingHosts/`), as `gemipanel-bridge install` does for a person;
 * `options.extension` loads another build of the extension than `dist` (a damaged copy);
 * `options.env` adds to the browser's environment (which the bridge inherits),
 * `options.profile` opens an existing profile (kept with `keepProfile`) again,
 * `options.webmcp` turns on Chromium's WebMCP (`document.modelContext`, pages' own tools);
 * `options.args` are more command-line switches;
 * `options.anyId` takes the id Chromium gives the extension (a build without the manifest's
 * `key`, such as the store package, gets one from its folder);
 * `options.nativeMessaging` (on unless `false`) loads a copy of the extension whose manifest
 * lists the optional `nativeMessaging` as required, so it is granted at install as it stays
 * for people who granted it before it became optional; with `false` the extension is loaded
 * as built, and local servers ask for it through Chrome's prompt;
 * `options.welcome` keeps the welcome page a first install opens (background/src/installed.rs),
 * which is otherwise waited for and closed, so every test starts with only the tabs it opens.
 * Returns { context, worker, id, profile, url(page), close() }.
 */
export async function launch({ headless = true, locale = 'en-US', colorScheme = 'light', keepProfile = false, extraExtensions = [], bridge = false, extension = dist, env = {}, profile: reused, webmcp = false, args = [], anyId = false, nativeMessaging = true, welcome = false } = {}) {
  if (!extensionId) throw new Error('GEMIPANEL_EXTENSION_ID is not set (run through cargo xtask)');
  const profile = reused ?? mkdtempSync(join(tmpdir(), 'gemipanel-profile-'));
  if (bridge) {
    execFileSync(bridgeBinary, ['install', '--user-data-dir', profile, '--extension-id', extensionId], { stdio: 'pipe' });
  }
  const firstInstall = !installedIn(profile);
  const granted = nativeMessaging ? withNativeMessaging(extension) : null;
  if (granted) extension = granted;
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless,
    locale,
    colorScheme,
    env: { ...process.env, ...env },
    viewport: { width: 420, height: 720 },
    ignoreDefaultArgs: ['--disable-extensions'],
    args: [
      `--disable-extensions-except=${[extension, ...extraExtensions].join(',')}`,
      `--load-extension=${[extension, ...extraExtensions].join(',')}`,
      `--lang=${locale}`,
      '--disable-gpu',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-quic',
      ...(webmcp ? ['--enable-features=WebMCP'] : []),
      ...args,
    ],
  });
  const worker = await serviceWorker(context, anyId ? null : extensionId);
  const id = new URL(worker.url()).host;
  // A profile without the extension is a first install; a build without the page (another
  // extension) opens none.
  if (!welcome && firstInstall && existsSync(join(extension, 'welcome.html'))) {
    await (await welcomePage(context, id)).close();
  }
  return {
    context,
    worker,
    id,
    profile,
    url: (page) => `chrome-extension://${id}/${page}`,
    async close() {
      await context.close();
      if (!keepProfile) rmSync(profile, { recursive: true, force: true });
      if (granted) rmSync(granted, { recursive: true, force: true });
    },
  };
}

/** A copy of the extension in `dir` with `nativeMessaging` among its required permissions. */
export function withNativeMessaging(dir) {
  const copy = mkdtempSync(join(tmpdir(), 'gemipanel-extension-'));
  cpSync(dir, copy, { recursive: true });
  const manifest = JSON.parse(readFileSync(join(copy, 'manifest.json'), 'utf8'));
  manifest.permissions = [...manifest.permissions, 'nativeMessaging'];
  manifest.optional_permissions = (manifest.optional_permissions ?? []).filter((p) => p !== 'nativeMessaging');
  writeFileSync(join(copy, 'manifest.json'), JSON.stringify(manifest, null, 2));
  return copy;
}

/** Whether the extension was installed in `profile` before (Chrome keeps it in Preferences). */
function installedIn(profile) {
  const preferences = join(profile, 'Default', 'Preferences');
  return !!extensionId && existsSync(preferences) && readFileSync(preferences, 'utf8').includes(extensionId);
}

/** The welcome page of extension `id`, waiting up to 15 s for it to open. */
export async function welcomePage(context, id = extensionId) {
  const url = `chrome-extension://${id}/welcome.html`;
  for (const deadline = Date.now() + 15_000; Date.now() < deadline;) {
    const page = context.pages().find((p) => p.url() === url);
    if (page) return page;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('the welcome page did not open on install');
}

/** The extension's service worker (of the extension `id`, or any), waiting for it to register. */
export async function serviceWorker(context, id = extensionId) {
  const mine = (w) => (id ? w.url() === `chrome-extension://${id}/background.js`
    : w.url().startsWith('chrome-extension://') && w.url().endsWith('/background.js'));
  const existing = context.serviceWorkers().find(mine);
  if (existing) return existing;
  return context.waitForEvent('serviceworker', { predicate: mine, timeout: 15_000 });
}

/** The copies of module `file` (e.g. `sidepanel_bg.wasm`) kept in Cache Storage
 * (static/kept_wasm.js), read from an extension page: their keys. */
export function keptCopies(page, file) {
  return page.evaluate(async (file) => (await (await caches.open('gemipanel-wasm')).keys())
    .map((r) => r.url).filter((url) => url.endsWith(`/${file}`)), file);
}

/** Waits until some copy of module `file` is kept. */
export function untilKept(page, file) {
  return page.waitForFunction(async (file) => (await (await caches.open('gemipanel-wasm')).keys())
    .some((r) => r.url.endsWith(`/${file}`)), file);
}

/** Waits until `url` is the one copy of module `file` kept (other builds' copies gone). */
export async function untilOnlyCopy(page, file, url) {
  for (let attempt = 0; ; attempt++) {
    const urls = await keptCopies(page, file);
    if (urls.length === 1 && urls[0] === url) return;
    if (attempt === 100) throw new Error(`kept copies of ${file}: ${urls.join(', ')}, not only ${url}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Stops every service worker through the DevTools protocol, as Chrome does when idle. */
export async function stopServiceWorkers(page) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('ServiceWorker.enable');
  await cdp.send('ServiceWorker.stopAllWorkers');
  await cdp.detach();
}

/**
 * Records the type of every request `page` sends the worker from its next navigation on, by
 * every way a page can: a one-shot message, the runtime port, the fast lane (a MessagePort,
 * JSON text). `requestsSent(page)` reads them in order.
 */
async function recordWorkerRequests(page) {
  await page.addInitScript(() => {
    const sent = globalThis.__workerRequests = [];
    const note = (message) => {
      try {
        const type = (typeof message === 'string' ? JSON.parse(message) : message)?.request?.type;
        if (type) sent.push(type);
      } catch { /* not a request */ }
    };
    const postOnLane = MessagePort.prototype.postMessage;
    MessagePort.prototype.postMessage = function (message, ...rest) {
      note(message);
      return postOnLane.call(this, message, ...rest);
    };
    if (!globalThis.chrome?.runtime) return;
    const sendMessage = chrome.runtime.sendMessage.bind(chrome.runtime);
    chrome.runtime.sendMessage = (message, ...rest) => { note(message); return sendMessage(message, ...rest); };
    const connect = chrome.runtime.connect.bind(chrome.runtime);
    chrome.runtime.connect = (...args) => {
      const port = connect(...args);
      const post = port.postMessage.bind(port);
      port.postMessage = (message) => { note(message); post(message); };
      return port;
    };
  });
}

const requestsSent = (page) => page.evaluate(() => globalThis.__workerRequests ?? []);

/** How many of `sent` (from `requestsAtOpen`) are of `type`. */
export const countOf = (sent, type) => sent.filter((t) => t === type).length;

/**
 * Opens `url` in `page` as after Chrome put the worker to sleep; the requests the page sent
 * the worker, once it shows the worker's status and what it does next at its start (models,
 * chats, tools) has had time to be sent.
 */
export async function requestsAtOpen(page, url) {
  await recordWorkerRequests(page);
  await page.goto('about:blank');
  await stopServiceWorkers(page);
  await page.goto(url);
  await workerStatusShown(page);
  await page.waitForTimeout(1_500);
  return requestsSent(page);
}

/** Stops the worker under an open `page`, which asks it again for `type` and shows its status. */
export async function askedAgainAfterRestart(page, type) {
  await stopServiceWorkers(page);
  await page.waitForFunction((type) => globalThis.__workerRequests.filter((t) => t === type).length >= 2, type);
  await workerStatusShown(page);
}

const workerStatusShown = (page) =>
  page.getByTestId('worker-status').and(page.locator('[data-state="ok"]')).waitFor();

/** Saves a screenshot of `page` and scans that state for accessibility (accessibility.mjs). */
export async function screenshot(page, name) {
  mkdirSync(outDir, { recursive: true });
  const path = join(outDir, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  await assertAccessible(page, name);
  return path;
}

/**
 * A core text (`{key, args}`, see core/src/text.rs) in English, worded from the built
 * extension's `_locales/en` as `chrome.i18n.getMessage` would: for assertions on what a
 * person would read.
 */
export function english(text) {
  if (typeof text === 'string') return text;
  const messages = english.messages ??= JSON.parse(readFileSync(join(dist, '_locales/en/messages.json'), 'utf8'));
  const args = (text.args ?? []).map(english);
  const entry = messages[text.key];
  if (!entry) return `${text.key} (${args.join(', ')})`;
  return entry.message.replace(/\$([A-Za-z0-9_]*)\$/g, (whole, name) => {
    if (name === '') return '$';
    const placeholder = entry.placeholders?.[name.toLowerCase()];
    if (!placeholder) return whole;
    return placeholder.content.replace(/\$(\d)/g, (_, n) => args[Number(n) - 1] ?? '');
  });
}
