// MCP Apps in the side panel: an app written with the official App class runs in the sandbox
// frame, gets its input and result, and each of its requests does what the host promises.
import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { appRecords, lastAppFrame, openChat } from './chat_page.mjs';
import { startAppsSmoke } from '../fixtures/apps-smoke/server.mjs';
import { textChunks, functionCallChunk } from '../fixtures/fake-gemini/server.mjs';

let chat;
let apps;
let serverId;

before(async () => {
  apps = await startAppsSmoke();
  chat = await openChat();
  serverId = `srv_${'a'.repeat(16)}`;
  const added = await chat.request({
    type: 'edit_settings',
    edit: { type: 'add_server', id: serverId, server: { name: 'Apps', url: apps.url } },
  });
  assert.equal(added.type, 'settings', JSON.stringify(added));
  await chat.request({ type: 'edit_settings', edit: { type: 'set_trust', id: serverId, trust: true } });
});
after(async () => {
  await chat?.close();
  await apps?.stop();
});
beforeEach(async () => {
  chat.fake.reset();
  await chat.reload();
});

/** The app's own frame, inside the sandbox page's. */
const appFrame = () => lastAppFrame(chat.page);
const records = (kind) => appRecords(appFrame(), kind);

async function showCounter(start) {
  chat.fake.script([
    { chunks: [functionCallChunk([{ name: 'mcp_apps_show_counter', args: { start } }])] },
    { chunks: textChunks('Here is the counter.') },
  ]);
  await chat.send('Show the counter');
  await chat.lastReply().filter({ hasText: 'Here is the counter.' }).waitFor({ timeout: 20_000 });
  const frame = chat.page.getByTestId('app-frame').last();
  await frame.and(chat.page.locator('[data-state="ready"]')).waitFor({ timeout: 20_000 });
  await appFrame().locator('li[data-kind="tool-result"]').waitFor({ timeout: 10_000 });
  return frame;
}

test('an App-class app initializes with the host context, then gets its input and result', async () => {
  const frame = await showCounter(3);
  const [connected] = await records('connected');
  assert.equal(connected.host.name, 'GemiPanel');
  assert.equal(connected.context.toolInfo.tool.name, 'show_counter');
  assert.equal(connected.context.displayMode, 'inline');
  assert.ok(['light', 'dark'].includes(connected.context.theme));
  assert.match(connected.context.styles.variables['--color-background-primary'], /\S/);
  assert.equal(connected.context.platform, 'web');
  assert.equal(connected.context.locale, 'en-US');
  assert.equal(connected.context.timeZone, Intl.DateTimeFormat().resolvedOptions().timeZone);
  assert.deepEqual(connected.context.availableDisplayModes.filter((m) => m !== 'pip').sort(), ['fullscreen', 'inline']);
  assert.ok(connected.capabilities.openLinks && connected.capabilities.serverTools, JSON.stringify(connected.capabilities));
  assert.deepEqual(await records('tool-input'), [{ arguments: { start: 3 } }]);
  const [result] = await records('tool-result');
  assert.equal(result.content[0].text, 'Counter at 3');
  assert.deepEqual(result.structuredContent, { value: 3 });
  // Storage works (in memory) in the opaque origin.
  await appFrame().locator('#storage').click();
  assert.deepEqual(await records('storage'), ['v']);
  // And so do cookies; IndexedDB fails the way it reports failures, not by throwing.
  await appFrame().locator('#cookie').click();
  assert.deepEqual(await records('cookie'), ['b=2']);
  await appFrame().locator('#idb').click();
  // IndexedDB answers asynchronously: its record comes after the click.
  await appFrame().locator('li[data-kind="idb"]').first().waitFor();
  assert.deepEqual(await records('idb'), ['SecurityError']);
  await chat.shoot('app-inline');
  assert.ok(await frame.isVisible());
});

test('app requests: its own app-only tool runs, a model-only one is refused, links ask first, messages go to the composer, context to the next request', async () => {
  await showCounter(1);
  await appFrame().locator('#bump').click();
  await appFrame().locator('li[data-kind="bump"]').waitFor();
  assert.equal((await records('bump'))[0].content[0].text, 'bump done');
  assert.deepEqual(apps.calls().at(-1), { name: 'bump', arguments: { by: 2 } });

  await appFrame().locator('#secret').click();
  await appFrame().locator('li[data-kind="secret-error"]').waitFor();
  assert.match((await records('secret-error'))[0], /may not call secret/);
  assert.ok(!apps.calls().some((c) => c.name === 'secret'), 'the model-only tool never ran');

  await appFrame().locator('#link').click();
  const ask = chat.page.getByTestId('app-link');
  await ask.waitFor();
  assert.match(await ask.innerText(), /127\.0\.0\.1/);
  await chat.shoot('app-link');
  const [tab] = await Promise.all([
    chat.browser.context.waitForEvent('page'),
    ask.getByRole('button', { name: 'Open in a new tab' }).click(),
  ]);
  await tab.waitForLoadState();
  assert.equal(tab.url(), apps.docs);
  await tab.close();
  await appFrame().locator('li[data-kind="link"]').waitFor();
  assert.deepEqual((await records('link'))[0], {});

  // An app's message goes after what the person was typing, which stays.
  await chat.page.getByTestId('input').fill('My own words');
  await appFrame().locator('#message').click();
  await appFrame().locator('li[data-kind="message"]').waitFor();
  assert.equal(await chat.page.getByTestId('input').inputValue(), 'My own words\n\nBump it again');

  await appFrame().locator('#context').click();
  await appFrame().locator('li[data-kind="context"]').waitFor();
  chat.fake.script([{ chunks: textChunks('Noted.') }]);
  await chat.page.getByTestId('input').fill('What does it show?');
  await chat.page.getByTestId('input').press('Enter');
  await chat.lastReply().filter({ hasText: 'Noted.' }).waitFor();
  const last = chat.chatRequests().at(-1).body.contents.at(-1);
  // Quoted as the app's data, apart from the person's words, never as them.
  const [added, words] = last.parts;
  assert.match(added.text, /^\[Context from an app: the app of tool show_counter \(Apps\)\. The app added it, not the person/);
  assert.match(added.text, /<<<app context (\w+)\nThe counter shows 3\n>>>app context \1$/);
  assert.equal(words.text, 'What does it show?');
  // The transcript says so beside the person's words, folded.
  const user = chat.page.locator('li.entry.user').last();
  assert.equal(await user.locator('.bubble').innerText(), 'What does it show?');
  const sent = user.getByTestId('app-context-sent');
  assert.equal(await sent.locator('summary').innerText(), 'Context added by the app of show_counter (Apps)');
  assert.ok(!(await sent.locator('pre').isVisible()), 'folded');
  await sent.locator('summary').click();
  assert.equal(await sent.locator('pre').innerText(), 'The counter shows 3');
  await chat.shoot('app-context-sent');
});

test("an app's tool calls follow the person's rules: excluded is refused, untrusted asks in the app's card", async () => {
  const page = chat.page;
  const edit = async (edit) => assert.equal((await chat.request({ type: 'edit_settings', edit })).type, 'settings');
  // One "always allow" for the tool that shows the app: it hands the app nothing else.
  await edit({ type: 'set_trust', id: serverId, trust: false });
  await edit({ type: 'allow_tool', id: serverId, tool: 'show_counter' });
  try {
    await chat.reload();
    await showCounter(1);
    const bumpsBefore = apps.calls().filter((c) => c.name === 'bump').length;
    const bumps = () => apps.calls().filter((c) => c.name === 'bump').length - bumpsBefore;
    const ask = page.getByTestId('app-call-ask');
    const bump = async () => {
      const before = (await records('bump')).length + (await records('bump-error')).length;
      await appFrame().locator('#bump').click();
      return before;
    };
    const answered = async (before) => {
      for (const started = Date.now(); ; await page.waitForTimeout(50)) {
        if ((await records('bump')).length + (await records('bump-error')).length > before) return;
        assert.ok(Date.now() - started < 10_000, 'the app got no answer');
      }
    };
    // Asked, in the app's card, naming the app, the tool and its arguments; No is an error
    // for the app, and nothing ran.
    let before = await bump();
    await ask.waitFor();
    assert.match(await ask.innerText(), /This app \(show_counter\) asks to run bump of Apps/);
    assert.match(await ask.innerText(), /"by": 2/);
    assert.equal(bumps(), 0);
    await chat.shoot('app-call-ask');
    await ask.getByRole('button', { name: 'Deny' }).click();
    await answered(before);
    assert.match((await records('bump-error'))[0], /denied/);
    assert.equal(bumps(), 0, 'a denied call never ran');
    // Allow once: it runs, and the next call asks again.
    before = await bump();
    await ask.getByRole('button', { name: 'Allow once' }).click();
    await answered(before);
    assert.equal(bumps(), 1);
    before = await bump();
    await ask.getByRole('button', { name: 'Always allow this tool' }).click();
    await answered(before);
    assert.equal(bumps(), 2);
    // Always: no question now, nor in the chat opened again.
    before = await bump();
    await answered(before);
    assert.equal(bumps(), 3);
    assert.equal(await ask.count(), 0);
    await chat.reload();
    await page.getByTestId('history').click();
    await page.getByTestId('saved-chat').first().locator('button.open').click();
    await page.getByTestId('app-frame').and(page.locator('[data-state="ready"]')).last().waitFor({ timeout: 20_000 });
    before = await bump();
    await answered(before);
    assert.equal(bumps(), 4);
    assert.equal(await ask.count(), 0);
    // Excluded: refused at once, trusted or not.
    await edit({ type: 'set_trust', id: serverId, trust: true });
    await edit({ type: 'set_tool_filters', id: serverId, include_tools: null, exclude_tools: ['bump'] });
    before = await bump();
    await answered(before);
    assert.match((await records('bump-error')).at(-1), /may not call bump: it is excluded/);
    assert.equal(bumps(), 4);
  } finally {
    await edit({ type: 'set_trust', id: serverId, trust: true });
    await edit({ type: 'disallow_tool', id: serverId, tool: 'show_counter' });
    await edit({ type: 'disallow_tool', id: serverId, tool: 'bump' });
    await edit({ type: 'set_tool_filters', id: serverId, include_tools: null, exclude_tools: [] });
  }
});

test('display mode, size and the app log', async () => {
  const frame = await showCounter(2);
  await appFrame().locator('#grow').click();
  await chat.page.waitForFunction(() => {
    const f = [...document.querySelectorAll('[data-testid="app-iframe"]')].at(-1);
    return f && f.getBoundingClientRect().height >= 519;
  });
  await appFrame().locator('#log').click();
  await frame.getByTestId('app-log').waitFor();
  assert.match(await frame.getByTestId('app-log').innerText(), /1/);
  await appFrame().locator('#fullscreen').click();
  await frame.and(chat.page.locator('[data-mode="fullscreen"]')).waitFor();
  assert.deepEqual((await records('fullscreen'))[0], { mode: 'fullscreen' });
  const changed = await records('context-changed');
  // Fullscreen, the app fills a box of the panel's size: a fixed height, not a maximum.
  const fullscreen = changed.find((c) => c.displayMode === 'fullscreen');
  assert.ok(fullscreen?.containerDimensions?.height > 300, JSON.stringify(changed));
  assert.equal(fullscreen.containerDimensions.maxHeight, undefined);
  await chat.shoot('app-fullscreen');
  await frame.getByTestId('app-fullscreen').click();
  await frame.and(chat.page.locator('[data-mode="inline"]')).waitFor();
  // Escape leaves fullscreen, also when the key is pressed inside the app.
  await appFrame().locator('#fullscreen').click();
  await frame.and(chat.page.locator('[data-mode="fullscreen"]')).waitFor();
  await appFrame().locator('#fullscreen').press('Escape');
  await frame.and(chat.page.locator('[data-mode="inline"]')).waitFor({ timeout: 5_000 });
  // Picture in picture: a small box over the chat, which stays usable; Escape brings it back.
  await appFrame().locator('#pip').click();
  await frame.and(chat.page.locator('[data-mode="pip"]')).waitFor();
  assert.deepEqual((await records('pip'))[0], { mode: 'pip' });
  const pip = (await records('context-changed')).findLast((c) => c.displayMode === 'pip');
  const box = await frame.boundingBox();
  assert.ok(pip?.containerDimensions?.height > 0 && pip.containerDimensions.width <= box.width, JSON.stringify(pip));
  assert.ok(box.width <= chat.page.viewportSize().width, 'it fits in the panel');
  await chat.page.getByTestId('input').fill('typing beside it');
  assert.equal(await chat.page.getByTestId('input').inputValue(), 'typing beside it');
  await chat.page.getByTestId('input').fill('');
  await chat.shoot('app-pip');
  await appFrame().locator('#pip').press('Escape');
  await frame.and(chat.page.locator('[data-mode="inline"]')).waitFor({ timeout: 5_000 });
  // A narrower side panel: the app hears of its new container width.
  const viewport = chat.page.viewportSize();
  const before = (await records('connected'))[0].context.containerDimensions.width;
  await chat.page.setViewportSize({ width: viewport.width - 80, height: viewport.height });
  try {
    await appFrame().locator('li[data-kind="context-changed"]', { hasText: 'containerDimensions' }).first()
      .waitFor({ timeout: 10_000 });
    const widths = (await records('context-changed')).filter((c) => c.containerDimensions)
      .map((c) => c.containerDimensions.width);
    assert.equal(widths.at(-1), before - 80, JSON.stringify(widths));
  } finally {
    await chat.page.setViewportSize(viewport);
  }
});

test('a reopened chat shows its app again from what was saved, without calling or reading anything', async () => {
  const page = chat.page;
  await showCounter(4);
  const [calls, reads] = [apps.calls().length, apps.reads().length];
  await page.getByTestId('new-chat').click();
  await page.locator('.empty').waitFor();
  await page.getByTestId('history').click();
  await page.getByTestId('saved-chat').filter({ hasText: 'Show the counter' }).first().locator('button.open').click();
  await page.getByTestId('app-frame').last().and(page.locator('[data-state="ready"]')).waitFor({ timeout: 20_000 });
  await appFrame().locator('li[data-kind="tool-result"]').waitFor({ timeout: 10_000 });
  assert.deepEqual(await records('tool-input'), [{ arguments: { start: 4 } }]);
  assert.deepEqual((await records('tool-result'))[0].structuredContent, { value: 4 });
  assert.equal(apps.calls().length, calls, 'the tool was not called again');
  assert.equal(apps.reads().length, reads, 'the app came from the saved chat, not the server');
  await chat.shoot('app-reopened');

  // The chat goes on: its new call is numbered after the restored one, so each app keeps its
  // own frame and result.
  await chat.page.getByTestId('app-iframe').first().evaluate((f) => { f.dataset.mark = 'restored'; });
  await showCounter(7);
  const results = chat.page.getByTestId('app-frame').and(chat.page.locator('[data-state="ready"]'));
  await results.nth(1).waitFor();
  assert.equal(await results.count(), 2);
  assert.equal(await chat.page.getByTestId('app-iframe').first().getAttribute('data-mark'), 'restored',
    'the restored app goes on in its frame');
  const valueIn = async (frame) => JSON.parse((await frame.frameLocator('[data-testid="app-iframe"]')
    .frameLocator('iframe').locator('li[data-kind="tool-result"]').first().innerText())
    .slice('tool-result '.length)).structuredContent.value;
  assert.deepEqual([await valueIn(results.first()), await valueIn(results.last())], [4, 7]);
  const ids = await chat.page.getByTestId('tool-card').evaluateAll((cards) => cards.map((c) => c.dataset.callId));
  assert.equal(new Set(ids).size, ids.length, `tool cards share an id: ${ids}`);
});

test('an app the panel holds is read on the server but not carried to the panel again', async () => {
  const read = (held) => chat.request({ type: 'read_app', server_id: serverId, uri: 'ui://counter/app.html', held });
  const reads = apps.reads().length;
  const first = await read(undefined);
  assert.equal(first.type, 'app', JSON.stringify(first).slice(0, 300));
  const app = first.read;
  assert.match(app.html, /ui\/initialize/);
  assert.match(app.digest, /^[A-Za-z0-9_-]{43}$/, 'a SHA-256, base64url');
  // Asked again with that copy's digest: its meta and digest, no HTML.
  const again = await read(app.digest);
  assert.deepEqual(again, { type: 'app', read: { meta: app.meta, digest: app.digest } });
  assert.ok(JSON.stringify(again).length < 200);
  // Another digest (a copy from before the app changed): the whole app.
  const other = await read('x'.repeat(43));
  assert.equal(other.read.html, app.html);
  assert.equal(apps.reads().length, reads + 3, 'each read asks the server: the app may have changed');
});

test('an app far out of view is suspended and comes back from what was saved when scrolled to', async () => {
  const page = chat.page;
  await showCounter(6);
  const [calls, reads] = [apps.calls().length, apps.reads().length];
  // Just out of view (about a screen away) it stays as it is: only far ones are suspended.
  const short = Array.from({ length: 22 }, (_, i) => `Near line ${i}.`).join('\n\n');
  chat.fake.script([{ chunks: textChunks(short, { size: 400 }) }]);
  await chat.send('Write a little');
  await chat.lastReply().filter({ hasText: 'Near line 21.' }).waitFor({ timeout: 30_000 });
  await page.getByText('Near line 21.').scrollIntoViewIfNeeded();
  const near = page.locator('.app-slot').last();
  assert.equal(await near.isVisible() && await near.evaluate((e) => {
    const box = e.getBoundingClientRect();
    return box.bottom < 0 || box.top > innerHeight;
  }), true, 'the app is out of view');
  const away = await near.evaluate((e) => -e.getBoundingClientRect().bottom);
  assert.ok(away > 0 && away < 1000, `the app is ${away} px away, within the distance apps stay live`);
  await page.waitForTimeout(1500);
  assert.equal(await near.getByTestId('app-suspended').count(), 0, 'an app a screen away is not suspended');
  assert.equal(await near.getByTestId('app-iframe').count(), 1);
  const long = Array.from({ length: 400 }, (_, i) => `Line ${i} of a long answer.`).join('\n\n');
  chat.fake.script([{ chunks: textChunks(long, { size: 400 }) }]);
  await chat.send('Write a lot');
  await chat.lastReply().filter({ hasText: 'Line 399 of a long answer.' }).waitFor({ timeout: 30_000 });
  // At the end of the long answer (the transcript follows it unless scrolled; be sure).
  await page.getByText('Line 399 of a long answer.').scrollIntoViewIfNeeded();
  const slot = page.locator('.app-slot').last();
  const suspended = slot.getByTestId('app-suspended');
  await suspended.waitFor({ timeout: 20_000 });
  assert.equal(await slot.getByTestId('app-iframe').count(), 0, 'its frames are gone');
  assert.ok((await suspended.boundingBox()).height > 100, 'the place keeps its height');
  await suspended.scrollIntoViewIfNeeded();
  await slot.getByTestId('app-frame').and(page.locator('[data-state="ready"]')).waitFor({ timeout: 20_000 });
  const app = slot.frameLocator('[data-testid="app-iframe"]').frameLocator('iframe');
  await app.locator('li[data-kind="tool-result"]').waitFor({ timeout: 10_000 });
  const [result] = (await app.locator('li[data-kind="tool-result"]').allInnerTexts())
    .map((t) => JSON.parse(t.slice('tool-result '.length)));
  assert.deepEqual(result.structuredContent, { value: 6 });
  assert.equal(apps.calls().length, calls, 'the tool was not called again');
  assert.equal(apps.reads().length, reads, 'the app came back from the saved HTML');
});

test('the tool browser runs a tool by hand, from its form or raw JSON, and shows its app', async () => {
  const page = chat.page;
  await page.getByTestId('tools').click();
  const browser = page.getByTestId('tool-browser');
  await browser.locator('[data-server="Apps"] summary').click();
  const entry = browser.locator('[data-testid="tool-entry"][data-tool="show_counter"]');
  await entry.waitFor({ timeout: 20_000 });
  assert.match(await entry.innerText(), /app/);
  assert.match(await browser.locator('[data-tool="bump"]').innerText(), /for its app only/);
  // Its resources, each read in place.
  const resources = browser.getByTestId('resource-list');
  assert.match(await resources.locator('h3').innerText(), /Resources \(2\)/);
  await resources.locator('[data-uri="memo://readme"] summary').click();
  assert.equal(await resources.getByTestId('resource-text').innerText(), 'The counter counts.');
  await chat.shoot('tool-browser');
  await entry.click();
  const runner = page.getByTestId('tool-runner');
  await runner.locator('[data-field="start"] input').fill('5');
  await runner.getByTestId('tool-run').click();
  const card = runner.getByTestId('tool-card').first();
  await card.and(page.locator('[data-state="done"]')).waitFor({ timeout: 20_000 });
  await runner.getByTestId('app-frame').and(page.locator('[data-state="ready"]')).waitFor({ timeout: 20_000 });
  const app = runner.frameLocator('[data-testid="app-iframe"]').frameLocator('iframe');
  await app.locator('li[data-kind="tool-result"]').waitFor();
  const [result] = (await app.locator('li[data-kind="tool-result"]').allInnerTexts())
    .map((t) => JSON.parse(t.slice('tool-result '.length)));
  assert.deepEqual(result.structuredContent, { value: 5 });
  assert.deepEqual(apps.calls().at(-1), { name: 'show_counter', arguments: { start: 5 } });
  await chat.shoot('tool-browser-run');

  // Raw JSON: what the form held, editable; a broken object is refused before anything runs.
  await runner.getByTestId('tool-raw-toggle').click();
  const raw = runner.getByTestId('tool-raw');
  assert.deepEqual(JSON.parse(await raw.inputValue()), { start: 5 });
  await raw.fill('{"start": ');
  const calls = apps.calls().length;
  await runner.getByTestId('tool-run').click();
  await runner.getByRole('alert').filter({ hasText: /not a JSON object/ }).waitFor();
  assert.equal(apps.calls().length, calls);
  await raw.fill('{"start": 8}');
  // The panel keeps a sandbox page loaded for the next app; this run's app gets it, moved into
  // place without a reload, and runs there as in a fresh one.
  const spare = page.locator('iframe[data-warm-sandbox][data-loaded]');
  await spare.waitFor({ state: 'attached' });
  await spare.evaluate((frame) => { frame.dataset.spare = 'marked'; });
  // Its inner frame is already made, waiting for the app's document.
  await spare.contentFrame().locator('iframe').evaluate((frame) => { frame.dataset.waiting = 'marked'; });
  await runner.getByTestId('tool-run').click();
  await runner.getByTestId('tool-card').first().and(page.locator('[data-state="done"]')).waitFor();
  assert.deepEqual(apps.calls().at(-1), { name: 'show_counter', arguments: { start: 8 } });
  // The runner keeps every run, newest first: the first run's app is still there below.
  assert.equal(await runner.getByTestId('app-frame').count(), 2);
  await runner.getByTestId('app-frame').first().and(page.locator('[data-state="ready"]')).waitFor({ timeout: 20_000 });
  const adopted = runner.locator('[data-testid="app-iframe"][data-spare="marked"]');
  assert.equal(await adopted.count(), 1, 'the spare page was used');
  assert.equal(await adopted.contentFrame().locator('iframe[data-waiting="marked"]').count(), 1,
    'the app was written into the frame that was waiting for it');
  await adopted.contentFrame().frameLocator('iframe').locator('li[data-kind="tool-result"]')
    .filter({ hasText: '"value":8' }).waitFor();
  // The next spare follows once the apps' process is idle.
  await page.locator('iframe[data-warm-sandbox]').waitFor({ state: 'attached', timeout: 5_000 });
  assert.equal(await page.locator('iframe[data-warm-sandbox]').count(), 1, 'one new spare');
  // An app-only tool is offered to its app, not to the person.
  await page.getByRole('button', { name: '← All tools' }).click();
  await browser.locator('[data-tool="bump"]').click();
  assert.equal(await page.getByTestId('tool-run').count(), 0);
  await page.getByTestId('tools').click();
});

test('an app gets the browser features it declared only once the person allows them', async () => {
  const page = chat.page;
  await chat.reload();
  await page.getByTestId('tools').click();
  await page.getByTestId('tool-browser').locator('[data-server="Apps"] summary').click();
  await page.locator('[data-tool="show_clipboard"]').click();
  await page.getByTestId('tool-run').click();
  const frame = page.getByTestId('app-frame');
  const app = page.frameLocator('[data-testid="app-iframe"]').last().frameLocator('iframe');
  const prompt = frame.getByTestId('app-permissions');
  await prompt.filter({ hasText: 'This app asks to use: writing to the clipboard' }).waitFor({ timeout: 20_000 });
  assert.equal(await app.locator('#allowed').innerText(), 'false', 'not before the person allowed it');
  await chat.shoot('app-permissions');
  await prompt.getByRole('button', { name: 'Allow' }).click();
  await app.locator('#allowed').filter({ hasText: 'true' }).waitFor({ timeout: 10_000 });
  assert.ok(await prompt.isHidden());
  assert.equal(await page.getByTestId('app-iframe').last().getAttribute('allow'), 'clipboard-write *');
});

test('a hostile app can only draw in its frame and call what it may', async () => {
  const page = chat.page;
  const other = await startAppsSmoke({ extraTool: 'only_elsewhere' });
  const otherId = `srv_${'b'.repeat(16)}`;
  await chat.request({ type: 'edit_settings', edit: { type: 'add_server', id: otherId, server: { name: 'Other', url: other.url } } });
  await chat.request({ type: 'edit_settings', edit: { type: 'set_trust', id: otherId, trust: true } });
  // The person's rules for Apps: not trusted, its app-only `bump` always allowed (the flood
  // below runs it), `show_clipboard` excluded.
  const rules = async (on) => {
    const edits = on
      ? [{ type: 'set_trust', id: serverId, trust: false }, { type: 'allow_tool', id: serverId, tool: 'bump' },
        { type: 'set_tool_filters', id: serverId, include_tools: null, exclude_tools: ['show_clipboard'] }]
      : [{ type: 'set_trust', id: serverId, trust: true }, { type: 'disallow_tool', id: serverId, tool: 'bump' },
        { type: 'set_tool_filters', id: serverId, include_tools: null, exclude_tools: [] }];
    for (const edit of edits) assert.equal((await chat.request({ type: 'edit_settings', edit })).type, 'settings');
  };
  await rules(true);
  try {
    await chat.reload();
    const panelUrl = page.url();
    const bumpsBefore = apps.calls().filter((c) => c.name === 'bump').length;
    // The server's calls since this test began (the tests before it show these apps too).
    const callsBefore = apps.calls().length;
    const ran = (name) => apps.calls().slice(callsBefore).some((c) => c.name === name);
    const pagesBefore = chat.browser.context.pages().length;
    await page.getByTestId('tools').click();
    const browser = page.getByTestId('tool-browser');
    await browser.locator('[data-server="Apps"] summary').click();
    await browser.locator('[data-tool="show_hostile"]').click();
    await page.getByTestId('tool-run').click();
    await page.getByTestId('app-frame').and(page.locator('[data-state="ready"]')).waitFor({ timeout: 20_000 });
    const app = page.frameLocator('[data-testid="app-iframe"]').last().frameLocator('iframe');
    // A tool the person never allowed: the app waits, and its card says which app asks.
    const ask = page.getByTestId('app-call-ask');
    await ask.waitFor({ timeout: 60_000 });
    assert.match(await ask.innerText(), /This app \(show_hostile\) asks to run show_embed of Apps/);
    assert.match(await ask.innerText(), /from the hostile app/);
    assert.ok(!ran('show_embed'), 'nothing ran before the person answered');
    await chat.shoot('app-hostile-asks');
    // The person was typing meanwhile: the app's message goes after the draft.
    await page.getByTestId('input').fill('My draft');
    await ask.getByRole('button', { name: 'Deny' }).click();
    await ask.waitFor({ state: 'detached' });
    await app.locator('#out[data-done="true"]').waitFor({ timeout: 90_000 });

    const outcomes = Object.fromEntries(await app.locator('li[data-attempt]').evaluateAll((items) =>
      items.map((li) => [li.dataset.attempt, { outcome: li.dataset.outcome, text: li.textContent }])));
    assert.equal(outcomes.initialize.outcome, 'answered', 'it speaks the protocol, so refusals are the host\'s');
    for (const name of ['chrome.runtime', 'chrome.storage', 'parent DOM', 'top DOM', 'fetch undeclared',
      'image undeclared', 'window.open', 'top navigation', 'model-only tool', 'other server tool', 'excluded tool',
      'tool never allowed', 'huge context', 'fullscreen without a click', 'link over a link', 'flood']) {
      assert.equal(outcomes[name]?.outcome, 'blocked', `${name}: ${outcomes[name]?.text}`);
    }
    assert.match(outcomes['model-only tool'].text, /may not call secret/);
    assert.match(outcomes['other server tool'].text, /may not call only_elsewhere/);
    assert.match(outcomes['excluded tool'].text, /may not call show_clipboard: it is excluded/);
    assert.match(outcomes['tool never allowed'].text, /denied/);
    assert.match(outcomes['huge context'].text, /model context too large: 124000 characters, at most 8000/);
    for (const name of ['show_clipboard', 'show_embed']) {
      assert.ok(!ran(name), `${name} never ran`);
    }
    // Fire-and-forget attempts: judged by what they would have reached.
    for (const name of ['form to top', 'forged relay control', 'forged to the panel', 'forged document to a waiting frame',
      'forged connect to other pages']) {
      assert.ok(outcomes[name], `${name} was tried`);
    }
    assert.doesNotMatch(outcomes['forged document to a waiting frame'].text, /to 0 frames/, 'a waiting frame was reachable');
    assert.doesNotMatch(outcomes['forged connect to other pages'].text, /to 0 pages/, 'another sandbox page was reachable');
    // The spare page's waiting frame took nothing from the app: the next app is written there.
    await page.locator('iframe[data-warm-sandbox][data-loaded]').waitFor({ state: 'attached' });
    assert.equal(await page.frameLocator('iframe[data-warm-sandbox]').frameLocator('iframe').locator('#hijacked').count(), 0);
    assert.deepEqual(apps.trapHits(), [], 'no request reached an undeclared origin (fetch, image, popup, form, navigation)');
    assert.equal(page.url(), panelUrl, 'the side panel was not navigated');
    assert.equal(chat.browser.context.pages().length, pagesBefore, 'no window was opened');
    assert.deepEqual(other.calls(), [], 'another server\'s tool was never called');
    assert.ok(!apps.calls().some((c) => c.name === 'secret'), 'the model-only tool was never called');
    // Forged control messages changed nothing: the app is still the one loaded, and nothing
    // reached the composer.
    assert.equal(await app.locator('h1').innerText(), 'Hostile');
    assert.equal(await page.getByTestId('input').inputValue(), 'My draft\n\nThe app says hi');
    // It stayed in its place, and the link shown is the first one it asked for.
    assert.equal(await page.getByTestId('app-frame').last().getAttribute('data-mode'), 'inline');
    const link = page.getByTestId('app-link');
    assert.match(await link.innerText(), /first-link/);
    assert.doesNotMatch(await link.innerText(), /second-link/);
    await link.getByRole('button', { name: 'Cancel' }).click();

    // The flood: every message answered, all but a handful refused at the cap on work in
    // flight, the server spared, and the chat still quick to use.
    const answered = Number(await app.locator('#out').getAttribute('data-flood-answered'));
    const refused = Number(await app.locator('#out').getAttribute('data-flood-refused'));
    assert.equal(answered, 10_000);
    assert.ok(refused >= 9_000, `${refused} refused`);
    const bumps = apps.calls().filter((c) => c.name === 'bump').length - bumpsBefore;
    assert.ok(bumps <= 10_000 - refused, `${bumps} calls reached the server`);
    assert.equal((await app.locator('li[data-attempt="ping after flood"]').getAttribute('data-outcome')), 'answered');
    const typed = Date.now();
    await page.getByTestId('input').fill('still here');
    assert.equal(await page.getByTestId('input').inputValue(), 'still here');
    assert.ok(Date.now() - typed < 2_000, 'typing answers at once after the flood');
    await page.getByTestId('input').fill('');
    await chat.shoot('app-hostile');

    // The spare page it offered a port and a document to is still the panel's: the next app
    // runs there as always.
    await page.getByRole('button', { name: '← All tools' }).click();
    await browser.locator('[data-tool="show_counter"]').click();
    await page.getByTestId('tool-run').click();
    await page.getByTestId('app-frame').and(page.locator('[data-state="ready"]')).last().waitFor({ timeout: 20_000 });
    const next = page.frameLocator('[data-testid="app-iframe"]').last().frameLocator('iframe');
    await next.locator('li[data-kind="tool-result"]').waitFor({ timeout: 10_000 });
    assert.equal(await next.locator('#hijacked').count(), 0);
  } finally {
    await rules(false);
    await chat.request({ type: 'edit_settings', edit: { type: 'remove_server', id: otherId } });
    await other.stop();
  }
});

test('an app that tries to load another page in its frame is stopped before anything leaves', async () => {
  const page = chat.page;
  await chat.reload();
  await page.getByTestId('tools').click();
  await page.getByTestId('tool-browser').locator('[data-server="Apps"] summary').click();
  await page.locator('[data-tool="show_wanderer"]').click();
  await page.getByTestId('tool-run').click();
  // Its frame may always navigate itself, sandbox or not: the sandbox page's policy refuses
  // the page, so the address (and what it carries) never reaches the server.
  const frame = page.getByTestId('app-frame');
  await frame.getByTestId('app-error').filter({ hasText: 'tried to load another page' }).waitFor({ timeout: 20_000 });
  assert.deepEqual(apps.trapHits(), []);
  assert.equal(await frame.locator('[data-testid="app-iframe"]').count(), 0, 'the app is gone');
  await chat.shoot('app-left');
});

test('an app in an endless loop is stopped and marked; the other apps come back and answer', async () => {
  const page = chat.page;
  await showCounter(4);
  const counter = page.getByTestId('app-frame').first();
  chat.fake.script([
    { chunks: [functionCallChunk([{ name: 'mcp_apps_show_spinner', args: {} }])] },
    { chunks: textChunks('Here is the spinner.') },
  ]);
  await chat.send('Show the spinner');
  await chat.lastReply().filter({ hasText: 'Here is the spinner.' }).waitFor({ timeout: 20_000 });
  const spinner = page.getByTestId('app-frame').nth(1);
  await spinner.and(page.locator('[data-state="ready"]')).waitFor({ timeout: 20_000 });
  const counterApp = counter.frameLocator('[data-testid="app-iframe"]').frameLocator('iframe');
  const spinnerApp = spinner.frameLocator('[data-testid="app-iframe"]').frameLocator('iframe');
  await spinnerApp.getByText('initialized').waitFor({ timeout: 10_000 });
  // Both apps' frames run on one thread: once the spinner loops, the counter's page is stuck too.
  const heading = () => counterApp.locator('h1').evaluate((h) => h.textContent, null, { timeout: 1500 });
  assert.equal(await heading(), 'Counter');
  const calls = apps.calls().length;
  await spinnerApp.locator('#spin').click();
  const stuckAt = Date.now();
  // The chat goes on, and shows two more apps, which start in the stuck process: the first in
  // the spare sandbox page (loaded already), the second in a page that cannot load.
  chat.fake.script([
    { chunks: [functionCallChunk([
      { name: 'mcp_apps_show_counter', args: { start: 7 } },
      { name: 'mcp_apps_show_counter', args: { start: 8 } },
    ])] },
    { chunks: textChunks('More counters.') },
  ]);
  await chat.send('Show two more counters');
  await page.waitForTimeout(300);
  await assert.rejects(heading(), 'the other app stops answering too (Chrome runs every sandbox page in one process)');
  const started = [page.getByTestId('app-frame').nth(2), page.getByTestId('app-frame').nth(3)];
  for (const app of started) await app.getByTestId('app-iframe').waitFor({ state: 'attached', timeout: 4_000 });
  const hung = spinner.getByTestId('app-hung');
  assert.equal(await hung.count(), 0, 'the two apps started before the hang was seen');
  await hung.waitFor({ timeout: 12_000 });
  const markedMs = Date.now() - stuckAt;
  assert.ok(markedMs < 9_000, `the hung app was marked after ${markedMs} ms`);
  assert.match(await hung.innerText(), /stopped answering/);
  assert.equal(await spinner.getByTestId('app-iframe').count(), 0, 'the looping app is gone');
  assert.equal(await spinner.getAttribute('data-state'), 'hung');
  // The counter starts again, in a new process, from what was saved (not called or read again).
  await counter.and(page.locator('[data-state="ready"]')).waitFor({ timeout: 15_000 });
  const [result] = (await counterApp.locator('li[data-kind="tool-result"]').allInnerTexts())
    .map((t) => JSON.parse(t.slice('tool-result '.length)));
  assert.deepEqual(result.structuredContent, { value: 4 });
  assert.equal(await heading(), 'Counter');
  // Only the new apps' calls: the counter was not called again.
  assert.deepEqual(apps.calls().slice(calls).map((c) => c.name), ['show_counter', 'show_counter']);
  const answeredMs = Date.now() - stuckAt;
  assert.ok(answeredMs < 15_000, `the counter answered again after ${answeredMs} ms`);
  // The apps that started in the stuck process start again in the new one.
  await chat.lastReply().filter({ hasText: 'More counters.' }).waitFor({ timeout: 20_000 });
  for (const app of started) {
    await app.and(page.locator('[data-state="ready"]')).waitFor({ timeout: 15_000 });
    const frame = app.frameLocator('[data-testid="app-iframe"]').frameLocator('iframe');
    await frame.locator('li[data-kind="tool-result"]').waitFor({ timeout: 10_000 });
  }
  await spinner.evaluate((e) => e.scrollIntoView({ block: 'center' }));
  await chat.shoot('app-hung');
  // Only the person starts it again; it runs until clicked.
  await spinner.getByTestId('app-hung-reload').click();
  await spinner.and(page.locator('[data-state="ready"]')).waitFor({ timeout: 20_000 });
  await spinnerApp.getByText('initialized').waitFor({ timeout: 10_000 });
  assert.equal(await spinner.getByTestId('app-hung').count(), 0);
});

test('an app embeds pages of the domains it declared, and of no other', async () => {
  const page = chat.page;
  await chat.reload();
  await page.getByTestId('tools').click();
  await page.getByTestId('tool-browser').locator('[data-server="Apps"] summary').click();
  await page.locator('[data-tool="show_embed"]').click();
  await page.getByTestId('tool-run').click();
  const app = page.frameLocator('[data-testid="app-iframe"]').last().frameLocator('iframe');
  // The lock on the sandbox page's own frame does not reach the app's frames.
  await app.frameLocator('#declared').locator('h1').filter({ hasText: 'Counter docs' }).waitFor({ timeout: 20_000 });
  await page.waitForTimeout(500);
  assert.deepEqual(apps.trapHits(), [], 'the undeclared page was not fetched');
});

test("an untrusted server's app is neither read nor shown until the person allows its call, and never for a denied one", async () => {
  const page = chat.page;
  const asks = await startAppsSmoke();
  const asksId = `srv_${'c'.repeat(16)}`;
  const added = await chat.request({ type: 'edit_settings', edit: { type: 'add_server', id: asksId, server: { name: 'Asks', url: asks.url } } });
  assert.equal(added.type, 'settings', JSON.stringify(added));
  const frames = page.getByTestId('app-frame');
  const quiet = async (what) => {
    // What the panel did at once when asked had time to arrive.
    await page.waitForTimeout(1500);
    assert.deepEqual(asks.reads(), [], `${what}: nothing was read from the server`);
    assert.equal(await frames.count(), 0, `${what}: no app frame`);
    assert.equal(await page.locator('.app-slot').count(), 0, `${what}: no place for an app`);
  };
  try {
    await chat.reload();
    chat.fake.script([
      { chunks: [functionCallChunk([{ name: 'mcp_asks_show_counter', args: { start: 11 } }])] },
      { chunks: textChunks('You said no.') },
    ]);
    await chat.send('Show the counter, asking first');
    const denied = page.getByTestId('tool-card').first();
    await denied.and(page.locator('[data-state="confirm"]')).waitFor({ timeout: 20_000 });
    await quiet('while the card asks');
    await chat.shoot('app-consent-asking');
    await denied.getByRole('button', { name: 'Deny' }).click();
    await chat.lastReply().filter({ hasText: 'You said no.' }).waitFor();
    assert.equal(await denied.getAttribute('data-state'), 'denied');
    await quiet('once denied');
    assert.deepEqual(asks.calls(), [], 'the denied tool never ran');

    chat.fake.script([
      { chunks: [functionCallChunk([{ name: 'mcp_asks_show_counter', args: { start: 12 } }])] },
      { chunks: textChunks('Here it is.') },
    ]);
    await chat.send('Show it after all');
    const allowed = page.getByTestId('tool-card').nth(1);
    await allowed.and(page.locator('[data-state="confirm"]')).waitFor({ timeout: 20_000 });
    await quiet('while the second card asks');
    await allowed.getByRole('button', { name: 'Allow once' }).click();
    await chat.lastReply().filter({ hasText: 'Here it is.' }).waitFor({ timeout: 20_000 });
    await frames.and(page.locator('[data-state="ready"]')).last().waitFor({ timeout: 20_000 });
    const app = page.frameLocator('[data-testid="app-iframe"]').last().frameLocator('iframe');
    await app.locator('li[data-kind="tool-result"]').waitFor({ timeout: 10_000 });
    const records = (kind) => appRecords(app, kind);
    assert.deepEqual(await records('tool-input'), [{ arguments: { start: 12 } }]);
    assert.deepEqual((await records('tool-result'))[0].structuredContent, { value: 12 });
    assert.equal(await frames.count(), 1, 'only the allowed call shows an app');
    assert.deepEqual(asks.reads(), ['ui://counter/app.html']);
    assert.equal(await denied.getAttribute('data-state'), 'denied');
    await chat.shoot('app-consent-allowed');

    // Reopened, the chat still shows no app for the denied call.
    await page.getByTestId('new-chat').click();
    await page.locator('.empty').waitFor();
    await page.getByTestId('history').click();
    await page.getByTestId('saved-chat').filter({ hasText: 'asking first' }).first().locator('button.open').click();
    await frames.and(page.locator('[data-state="ready"]')).last().waitFor({ timeout: 20_000 });
    await page.waitForTimeout(500);
    assert.equal(await frames.count(), 1, 'reopened: only the allowed call shows an app');
    assert.equal(await page.locator('.app-slot').count(), 1);
    assert.deepEqual(asks.reads(), ['ui://counter/app.html'], 'reopened: nothing read again');
  } finally {
    await chat.request({ type: 'edit_settings', edit: { type: 'remove_server', id: asksId } });
    await asks.stop();
  }
});

test('an app is asked to clean up, and answers, before its frame goes: reloaded, a new chat, the tool browser', async () => {
  const page = chat.page;
  await chat.reload();
  let tornDown = 0;
  const onConsole = (message) => { if (message.text() === 'apps-smoke: torn down') tornDown += 1; };
  page.on('console', onConsole);
  const until = async (what, ok) => {
    for (const started = Date.now(); !ok(); await page.waitForTimeout(50)) {
      if (Date.now() - started > 10_000) throw new Error(`waited for ${what}`);
    }
  };
  try {
    const frame = await showCounter(4);
    await frame.getByTestId('app-reload').click();
    // The app's answer came 100 ms after the request: its frame was still there to send it.
    await until('the reloaded app to answer its teardown', () => tornDown === 1);
    await frame.and(page.locator('[data-state="ready"]')).waitFor({ timeout: 20_000 });
    await appFrame().locator('li[data-kind="tool-result"]').waitFor({ timeout: 10_000 });
    await page.getByTestId('new-chat').click();
    await until('the app of the chat left to answer its teardown', () => tornDown === 2);
    // Its frame goes once it answered (the answer follows the log line at once; 1 s is the limit).
    await page.locator('[data-testid="app-departing"] iframe').waitFor({ state: 'detached', timeout: 900 });
    // The chat's view gives way to the tool browser.
    await showCounter(5);
    await page.getByTestId('tools').click();
    await until('the chat app to answer as the tool browser opened', () => tornDown === 3);
    // The tool browser's runner goes back to the list.
    await page.getByTestId('tool-browser').locator('[data-server="Apps"] summary').click();
    await page.locator('[data-tool="show_counter"]').click();
    await page.getByTestId('tool-run').click();
    await appFrame().locator('li[data-kind="tool-result"]').waitFor({ timeout: 20_000 });
    await page.getByRole('button', { name: '← All tools' }).click();
    await until('the runner app to answer as the runner closed', () => tornDown === 4);
    await page.getByTestId('tools').click();

    // An app that never answers: its frame waits aside a moment, then goes all the same.
    await showCounter(6);
    await appFrame().locator('body').evaluate(() => { window.neverAnswerTeardown = true; });
    await page.getByTestId('app-frame').last().getByTestId('app-reload').click();
    const departing = page.locator('[data-testid="app-departing"] iframe');
    await departing.waitFor({ state: 'attached', timeout: 500 });
    await departing.waitFor({ state: 'detached', timeout: 3_000 });
    assert.equal(tornDown, 4, 'it never answered');
  } finally {
    page.off('console', onConsole);
  }
});
