// The pages' fast lane to the worker (browser/src/channel.rs, static/background.js): a
// MessageChannel the worker pairs with a page's runtime port. Requests and replies take it as
// JSON text; events and the worker's lifetime stay with the runtime port.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch, serviceWorker, stopServiceWorkers } from './harness.mjs';
import { startEverything } from './servers.mjs';

let browser;
let everything;

before(async () => {
  everything = await startEverything();
  browser = await launch();
});
after(async () => {
  await browser?.close();
  await everything?.stop();
});

/** Counts, in the running worker, the replies it posts on lanes (JSON text on a MessagePort). */
async function countLaneReplies() {
  const worker = await serviceWorker(browser.context);
  await worker.evaluate(() => {
    globalThis.laneReplies = 0;
    const post = MessagePort.prototype.postMessage;
    MessagePort.prototype.postMessage = function (message, ...rest) {
      if (typeof message === 'string') globalThis.laneReplies += 1;
      return post.call(this, message, ...rest);
    };
  });
  return async () => (await serviceWorker(browser.context)).evaluate(() => globalThis.laneReplies);
}

/** Clicks "Refresh status" until the worker has answered the side panel on a lane. */
async function refreshUntilOnLane(page, laneReplies) {
  const deadline = Date.now() + 10_000;
  while ((await laneReplies()) === 0) {
    if (Date.now() > deadline) throw new Error('the side panel never sent a request on its lane');
    await page.getByRole('button', { name: 'Refresh status' }).click();
    await new Promise((r) => setTimeout(r, 100));
  }
}

test('the side panel sends its requests on the lane, again after the worker restarted', async () => {
  let laneReplies = await countLaneReplies();
  const page = await browser.context.newPage();
  await page.goto(browser.url('sidepanel.html'));
  const status = page.getByTestId('worker-status');
  await status.and(page.locator('[data-state="ok"]')).waitFor();
  await refreshUntilOnLane(page, laneReplies);

  await stopServiceWorkers(page);
  await page.getByRole('button', { name: 'Refresh status' }).click();
  await page.getByText(/worker up [01] s/).waitFor({ timeout: 10_000 });
  laneReplies = await countLaneReplies();
  await refreshUntilOnLane(page, laneReplies);
  assert.equal(await status.getAttribute('data-state'), 'ok');
  await page.close();
});

test('a tool call on the lane: result on the lane, progress events on the port', async () => {
  const page = await browser.context.newPage();
  await page.goto(browser.url('popup.html'));
  const id = 'srv_lane00000000000';
  const added = await page.evaluate(({ id, url }) => chrome.runtime.sendMessage({
    id: 1, request: { type: 'edit_settings', edit: { type: 'add_server', id, server: { name: 'lane', url } } },
  }), { id, url: everything.url });
  assert.equal(added?.response?.type, 'settings', JSON.stringify(added));

  const { onLane, onPort } = await page.evaluate(async (serverId) => {
    const token = Math.random().toString(16).slice(2);
    const port = chrome.runtime.connect({ name: `test#${token}` });
    const onPort = [];
    port.onMessage.addListener((m) => onPort.push(m));
    const lane = new MessageChannel();
    const onLane = [];
    const paired = new Promise((resolve) => {
      lane.port1.onmessage = (e) => (e.data?.kind === 'channel_ready' ? resolve() : onLane.push(e.data));
    });
    (await navigator.serviceWorker.ready).active.postMessage({ gemipanel_channel: token }, [lane.port2]);
    const late = new Promise((_, reject) => setTimeout(() => reject(new Error('the worker did not pair the lane')), 5000));
    await Promise.race([paired, late]);
    lane.port1.postMessage(JSON.stringify({ id: 7, request: { type: 'call_tool', call_id: 'lane-1',
      server_id: serverId, tool: 'trigger-long-running-operation', arguments: { duration: 0.6, steps: 3 } } }));
    const deadline = Date.now() + 10_000;
    const progress = () => onPort.filter((m) => m.event?.type === 'tool_progress').length;
    while ((onLane.length === 0 || progress() < 3) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    port.disconnect();
    return { onLane, onPort };
  }, id);

  assert.equal(onLane.length, 1, JSON.stringify(onLane));
  assert.equal(typeof onLane[0], 'string', 'replies on the lane are JSON text');
  const reply = JSON.parse(onLane[0]);
  assert.equal(reply.kind, 'response');
  assert.equal(reply.id, 7);
  assert.equal(reply.response.type, 'tool_result', onLane[0]);
  assert.ok(!onPort.some((m) => m.kind === 'response'), 'the answer did not also go on the port');
  const progress = onPort.filter((m) => m.event?.type === 'tool_progress').map((m) => m.event);
  assert.deepEqual(progress.map((e) => e.progress), [1, 2, 3]);
  assert.ok(progress.every((e) => e.call_id === 'lane-1'));
  await page.close();
});

test('a port whose lane never arrives is answered on the port', async () => {
  const page = await browser.context.newPage();
  await page.goto(browser.url('popup.html'));
  const reply = await page.evaluate(() => new Promise((resolve) => {
    const port = chrome.runtime.connect({ name: 'test#nolanehere' });
    port.onMessage.addListener((m) => { if (m.kind === 'response') resolve(m); });
    port.postMessage({ id: 3, request: { type: 'status' } });
  }));
  assert.equal(reply.id, 3);
  assert.equal(reply.response.type, 'status', JSON.stringify(reply));
  await page.close();
});
