// Tool list changes of a stateless (2026-07-28) server reach an open side panel without a tool
// call: the worker keeps a `subscriptions/listen` stream open while a page holds a port.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch, screenshot, stopServiceWorkers } from './harness.mjs';
import { startStateless2026 } from './servers.mjs';

let browser;
let stateless;
let panel;

before(async () => {
  stateless = await startStateless2026();
  browser = await launch();
  panel = await browser.context.newPage();
  panel.errors = [];
  panel.on('pageerror', (e) => panel.errors.push(String(e)));
  await panel.goto(browser.url('sidepanel.html'));
  // A port of the test's own beside the panel's, recording the worker's events.
  await panel.evaluate(() => {
    window.testEvents = [];
    window.testPort = chrome.runtime.connect({ name: 'test' });
    window.testPort.onMessage.addListener((m) => {
      if (m.kind === 'event') window.testEvents.push(m.event);
    });
  });
});
after(async () => {
  await browser?.close();
  await stateless?.stop();
});

let nextId = 1;
async function request(req) {
  const id = nextId++;
  const reply = await panel.evaluate((m) => chrome.runtime.sendMessage(m), { id, request: req });
  assert.equal(reply?.kind, 'response', JSON.stringify(reply));
  return reply.response;
}

async function toolNames(serverId) {
  const tools = await request({ type: 'list_tools', server_id: serverId, refresh: false });
  assert.equal(tools.type, 'tools', JSON.stringify(tools));
  return tools.tools.map((t) => t.name);
}

/** Waits for the worker to tell the pages that `serverId`'s tools changed. */
function toolsChangedEvent(serverId) {
  return panel.waitForFunction(
    (id) => window.testEvents.some((e) => e.type === 'tools_changed' && e.server_id === id),
    serverId,
    { timeout: 10_000 },
  );
}

test('a tool added on the server reaches the open side panel without a tool call', async () => {
  const id = 'srv_0123456789abcdef';
  const added = await request({
    type: 'edit_settings',
    edit: { type: 'add_server', id, server: { name: 'Stateless', url: stateless.url } },
  });
  assert.equal(added.type, 'settings', JSON.stringify(added));
  const listed = await request({ type: 'list_servers' });
  const view = listed.servers.find((s) => s.id === id);
  assert.equal(view?.status.state, 'ready', JSON.stringify(listed));
  assert.equal(view.status.protocol_version, '2026-07-28');
  assert.ok(!(await toolNames(id)).includes('arrived'));

  await stateless.addTool('arrived');
  await toolsChangedEvent(id);
  // The worker fetched the list when told; the reply is that fresh list (its ttlMs is a minute).
  assert.ok((await toolNames(id)).includes('arrived'));
  assert.deepEqual(panel.errors, []);
  await screenshot(panel, 'sidepanel-after-tools-changed');
});

test('a server moved to another URL is listened to there at once, and no longer at the old one', async () => {
  const id = 'srv_0123456789abcdef';
  const moved = await startStateless2026();
  try {
    const updated = await request({
      type: 'edit_settings',
      edit: { type: 'update_server', id, changes: { url: moved.url } },
    });
    assert.equal(updated.type, 'settings', JSON.stringify(updated));
    // What the side panel does at every settings change.
    const listed = await request({ type: 'list_servers' });
    assert.equal(listed.servers.find((s) => s.id === id)?.status.state, 'ready', JSON.stringify(listed));
    await panel.evaluate(() => { window.testEvents = []; });

    await moved.addTool('moved_here');
    await toolsChangedEvent(id);
    assert.ok((await toolNames(id)).includes('moved_here'));

    // The old URL's subscription was closed with its client: its changes are not announced.
    await panel.evaluate(() => { window.testEvents = []; });
    await stateless.addTool('left_behind');
    await new Promise((r) => setTimeout(r, 1500));
    assert.deepEqual(await panel.evaluate(() => window.testEvents.filter((e) => e.type === 'tools_changed')), []);
    assert.ok(!(await toolNames(id)).includes('left_behind'));
  } finally {
    await moved.stop();
  }
});

test('the subscription closes when the last page goes, and opens again with the next page', async () => {
  const id = 'srv_0123456789abcdef';
  const waitForListens = async (server, count) => {
    const deadline = Date.now() + 10_000;
    while ((await server.openListens()) !== count) {
      assert.ok(Date.now() < deadline, `expected ${count} open subscriptions/listen streams`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  // The previous test moved the server to a server it has stopped since: move it back.
  const updated = await request({
    type: 'edit_settings',
    edit: { type: 'update_server', id, changes: { url: stateless.url } },
  });
  assert.equal(updated.type, 'settings', JSON.stringify(updated));
  await request({ type: 'list_servers' });
  await waitForListens(stateless, 1);

  await panel.close();
  await waitForListens(stateless, 0);

  panel = await browser.context.newPage();
  panel.errors = [];
  panel.on('pageerror', (e) => panel.errors.push(String(e)));
  await panel.goto(browser.url('sidepanel.html'));
  await request({ type: 'list_servers' });
  await waitForListens(stateless, 1);
  assert.deepEqual(panel.errors, []);
});

test('a worker stopped under an open panel listens again when it starts, and tells the panel of changes', async () => {
  const listens = async (count) => {
    const deadline = Date.now() + 10_000;
    while ((await stateless.openListens()) !== count) {
      assert.ok(Date.now() < deadline, `expected ${count} open subscriptions/listen streams, saw ${await stateless.openListens()}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  await listens(1);
  // As Chrome does to an idle worker; the panel's port drops and the panel connects again.
  await stopServiceWorkers(panel);
  await listens(0);
  await panel.getByTestId('worker-status').and(panel.locator('[data-state="ok"]')).waitFor();
  await listens(1);
  // The test's own port went with the old worker.
  await panel.evaluate(() => {
    window.testEvents = [];
    window.testPort = chrome.runtime.connect({ name: 'test' });
    window.testPort.onMessage.addListener((m) => {
      if (m.kind === 'event') window.testEvents.push(m.event);
    });
  });
  // The new worker told the pages of the list it fetched as it took the server up again; a
  // late copy of that news must not pass for the one of the tool added next.
  await panel.waitForTimeout(500);
  await panel.evaluate(() => { window.testEvents = []; });
  await stateless.addTool('after_restart');
  await toolsChangedEvent('srv_0123456789abcdef');
  assert.ok((await toolNames('srv_0123456789abcdef')).includes('after_restart'));
  assert.deepEqual(panel.errors, []);
});
