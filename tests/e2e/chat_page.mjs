// The setup the side panel's chat tests share: the built extension in Chromium with the side
// panel open, the fake Gemini API (tests/fixtures/fake-gemini) as the settings' base URL,
// server-everything running, and the helpers the tests drive the panel with.
import assert from 'node:assert/strict';
import { launch, screenshot } from './harness.mjs';
import { startEverything } from './servers.mjs';
import { startFakeGemini } from '../fixtures/fake-gemini/server.mjs';

export const API_KEY = 'test-key';

/** The last MCP App's own frame in `page`, inside its sandbox page's frame. */
export const lastAppFrame = (page) => page.frameLocator('[data-testid="app-iframe"]').last().frameLocator('iframe');

/** What a test app in `frame` recorded of `kind`: its `<li data-kind>` entries, as JSON. */
export const appRecords = async (frame, kind) => (await frame.locator(`li[data-kind="${kind}"]`).allInnerTexts())
  .map((t) => JSON.parse(t.slice(kind.length + 1)));

/** `options`: `locale`, and the rest of `launch`'s options (`webmcp`, `args`, `headless`). */
export async function openChat({ locale, ...options } = {}) {
  const fake = await startFakeGemini({ apiKey: API_KEY });
  const everything = await startEverything();
  const browser = await launch(locale ? { locale, ...options } : options);
  const page = await browser.context.newPage();
  let nextId = 1;

  const chat = {
    browser,
    page,
    fake,
    everything,

    /** A one-shot request to the worker; its response. */
    async request(req) {
      const reply = await page.evaluate((m) => chrome.runtime.sendMessage(m), { id: nextId++, request: req });
      assert.equal(reply?.kind, 'response', JSON.stringify(reply));
      return reply.response;
    },

    async reload() {
      await page.reload();
      await page.getByTestId('worker-status').and(page.locator('[data-state="ok"]')).waitFor();
    },

    async send(text) {
      const input = page.getByTestId('input');
      await input.fill(text);
      await input.press('Enter');
    },

    /** Both themes of the current state. */
    async shoot(name) {
      await page.emulateMedia({ colorScheme: 'light' });
      await screenshot(page, `chat-${name}-light`);
      await page.emulateMedia({ colorScheme: 'dark' });
      await screenshot(page, `chat-${name}-dark`);
      await page.emulateMedia({ colorScheme: 'light' });
    },

    /** The chat requests the fake received (the model list is fetched too, with GET). */
    chatRequests: () => fake.requests().filter((r) => r.method === 'POST'),
    lastReply: () => page.getByTestId('reply').last(),

    /** Adds server-everything; `trust` lets its tools run without a confirmation card. */
    async addEverything({ trust = false } = {}) {
      const id = `srv_${Math.random().toString(16).slice(2, 10)}`;
      const added = await chat.request({
        type: 'edit_settings',
        edit: { type: 'add_server', id, server: { name: 'everything', url: everything.url } },
      });
      assert.equal(added.type, 'settings', JSON.stringify(added));
      if (trust) await chat.request({ type: 'edit_settings', edit: { type: 'set_trust', id, trust: true } });
      return id;
    },

    async removeServer(id) {
      await chat.request({ type: 'edit_settings', edit: { type: 'remove_server', id } });
    },

    async close() {
      await browser.close();
      await fake.close();
      await everything.stop();
    },
  };

  await page.goto(browser.url('sidepanel.html'));
  // The settings document as the worker stores it, pointing Gemini at the fake.
  await page.evaluate(({ key, base }) => chrome.storage.local.set({
    // No model: the automatic default, the newest stable Flash of the fake's (today's) list.
    settings: { version: 6, gemini: { api_key: key, base_url: base }, servers: [] },
  }), { key: API_KEY, base: fake.url });
  const settings = await chat.request({ type: 'get_settings' });
  assert.equal(settings.settings?.gemini?.base_url, fake.url, JSON.stringify(settings));
  return chat;
}
