// The side panel's chat, the parts chat.test.mjs leaves out: tool progress, URL-mode
// elicitation, a connection lost mid-stream and the order of an elicitation form's fields.
// Same setup: the built extension in Chromium, the fake Gemini API, server-everything.
import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { openChat } from './chat_page.mjs';
import { startSlowServer } from './servers.mjs';
import { textChunks, functionCallChunk } from '../fixtures/fake-gemini/server.mjs';

let chat;
let browser;
let fake;
let landing;
let page;

before(async () => {
  landing = await startLanding();
  chat = await openChat();
  ({ browser, fake, page } = chat);
});
after(async () => {
  await chat?.close();
  await landing?.stop();
});
beforeEach(async () => {
  fake.reset();
  landing.reset();
  await chat.reload();
});

const send = (text) => chat.send(text);
const shoot = (name) => chat.shoot(name);
const reload = () => chat.reload();
const chatRequests = () => chat.chatRequests();
const lastReply = () => chat.lastReply();
const removeServer = (id) => chat.removeServer(id);

/** A page a URL elicitation points at: counts who fetched it, so prefetching would show. */
async function startLanding() {
  let hits = [];
  const server = http.createServer((req, res) => {
    // The browser asks for an icon of every page it opens: not a prefetch.
    if (req.url !== '/favicon.ico') hits.push(req.url);
    res.writeHead(200, { 'content-type': 'text/html' }).end('<title>Connect</title><h1>Connect</h1>');
  });
  await new Promise((resolve) => server.listen({ port: 0, host: '127.0.0.1' }, resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    hits: () => [...hits],
    reset() { hits = []; },
    stop: () => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

/** The function responses of the last turn sent to the fake, by call id or name. */
function functionResponses(req) {
  const turn = req.body.contents[req.body.contents.length - 1];
  assert.equal(turn.role, 'user');
  return turn.parts.map((p) => p.functionResponse);
}

/** Adds server-everything, trusted (its tools run without a confirmation card). */
async function addTrustedEverything() {
  const id = await chat.addEverything({ trust: true });
  await reload();
  return id;
}

test('a long-running tool shows its progress while it runs, then its result and duration', async () => {
  const id = await addTrustedEverything();
  try {
    fake.script([
      { chunks: [functionCallChunk([{ name: 'mcp_everything_trigger_long_running_operation', args: { duration: 2, steps: 4 } }])] },
      { chunks: textChunks('The operation finished.') },
    ]);
    await send('Run the long operation');
    const card = page.getByTestId('tool-card').last();
    await card.and(page.locator('[data-state="running"]')).waitFor();
    await card.locator('summary').click();
    // Each step's notification replaces the last. Record every state the card showed while it
    // ran, in the page: polling over CDP misses short steps when the machine is busy.
    await card.evaluate((el) => {
      el.shownProgress = [];
      const record = () => {
        const text = el.querySelector('.progress .progress-text');
        const bar = el.querySelector('.progress progress');
        if (text && bar) el.shownProgress.push([text.textContent.trim(), `${bar.value}/${bar.max}`]);
      };
      record();
      new MutationObserver(record).observe(el, { subtree: true, childList: true, characterData: true, attributes: true });
    });
    await card.locator('.progress .progress-text').waitFor();
    await shoot('tool-progress');
    await card.and(page.locator('[data-state="done"]')).waitFor({ timeout: 15_000 });
    const states = await card.evaluate((el) => el.shownProgress);
    const shown = [...new Set(states.map(([text]) => text))];
    const bars = new Set(states.map(([, value]) => value));
    assert.ok(shown.length >= 2, `the progress changed while running: ${JSON.stringify(shown)}`);
    for (const text of shown) assert.match(text, /^[1-4] \/ 4$/);
    assert.ok(shown.includes('1 / 4') || shown.includes('2 / 4'), JSON.stringify(shown));
    assert.ok(bars.size >= 2, `the bar moved: ${JSON.stringify([...bars])}`);
    for (const value of bars) assert.match(value, /^[1-4]\/4$/);
    for (const [text, value] of states) {
      assert.equal(text.replace(/ /g, ''), value, 'the bar and the text agree');
    }

    await lastReply().filter({ hasText: 'The operation finished.' }).and(page.locator('[data-state="done"]')).waitFor();
    assert.equal(await card.getAttribute('data-state'), 'done');
    assert.equal(await card.locator('.progress').count(), 0, 'no progress once done');
    assert.match(await card.locator('.result').innerText(), /Long running operation completed\. Duration: 2 seconds, Steps: 4\./);
    const duration = await card.locator('.duration').innerText();
    const seconds = Number(duration.replace(/ s$/, ''));
    assert.ok(seconds >= 1.9 && seconds < 10, `duration ${duration}`);
    const [response] = functionResponses(chatRequests()[1]);
    assert.match(JSON.stringify(response.response), /Long running operation completed/);
    await shoot('tool-progress-done');
  } finally {
    await removeServer(id);
  }
});

const urlCall = (message, path) => ({
  name: 'mcp_everything_trigger_url_elicitation',
  args: { url: `${landing.url}${path}`, message },
});

test('a URL elicitation shows the full URL and its host, and opens it only on Accept', async () => {
  const id = await addTrustedEverything();
  try {
    fake.script([
      { chunks: [functionCallChunk([urlCall('Connect your Example account.', '/connect?step=1')])] },
      { chunks: textChunks('Connected, thanks.') },
    ]);
    await send('Connect my account');
    const card = page.getByTestId('elicitation');
    await card.waitFor();
    const url = `${landing.url}/connect?step=1`;
    assert.match(await card.innerText(), /Connect your Example account\./);
    assert.equal(await card.getByTestId('elicitation-server').innerText(), 'everything asks:', 'the card names who asks');
    const link = card.locator(`a[href="${url}"]`);
    assert.equal(await link.innerText(), url, 'the full URL is shown');
    assert.equal(await link.getAttribute('target'), '_blank');
    assert.match(await link.getAttribute('rel'), /noopener/);
    assert.match(await link.getAttribute('rel'), /noreferrer/);
    assert.equal(await card.getByTestId('elicitation-host').innerText(), new URL(url).host);
    assert.deepEqual(landing.hits(), [], 'nothing fetched the URL before consent');
    await shoot('elicitation-url');

    // Accept is consent to open: the URL opens in a new tab and the server hears "accept".
    const opened = browser.context.waitForEvent('page');
    await card.getByRole('button', { name: 'Accept' }).click();
    const tab = await opened;
    await tab.waitForLoadState();
    assert.equal(tab.url(), url);
    assert.equal(await tab.evaluate(() => window.opener), null, 'opened without an opener');
    await tab.close();
    await lastReply().filter({ hasText: 'Connected, thanks.' }).waitFor();
    assert.deepEqual(landing.hits(), ['/connect?step=1']);
    const [response] = functionResponses(chatRequests()[1]);
    assert.match(JSON.stringify(response.response), /User completed the URL elicitation flow/);
    assert.match(JSON.stringify(response.response), /\\"action\\": \\"accept\\"/);
    assert.doesNotMatch(JSON.stringify(response.response), /\\"content\\"/, 'URL mode sends no content');
    assert.match(await card.innerText(), /accept/i);
    assert.equal(await card.locator('a[href]').count(), 0, 'an answered card has no link left');
    await shoot('elicitation-url-accepted');
  } finally {
    await removeServer(id);
  }
});

test('a URL elicitation declined or cancelled opens nothing and answers as such', async () => {
  const id = await addTrustedEverything();
  try {
    fake.script([
      { chunks: [functionCallChunk([
        urlCall('Decline me.', '/decline'),
        urlCall('Cancel me.', '/cancel'),
      ])] },
      { chunks: textChunks('Nothing was opened.') },
    ]);
    let pages = 0;
    const count = () => { pages += 1; };
    browser.context.on('page', count);
    await send('Two links please');
    const declined = page.getByTestId('elicitation').filter({ hasText: 'Decline me.' });
    const cancelled = page.getByTestId('elicitation').filter({ hasText: 'Cancel me.' });
    await declined.waitFor();
    await cancelled.waitFor();
    await declined.getByRole('button', { name: 'Decline' }).click();
    await cancelled.getByRole('button', { name: 'Cancel' }).click();
    await lastReply().filter({ hasText: 'Nothing was opened.' }).waitFor();
    browser.context.off('page', count);
    assert.equal(pages, 0, 'no tab was opened');
    assert.deepEqual(landing.hits(), []);
    const text = JSON.stringify(functionResponses(chatRequests()[1]).map((r) => r.response));
    assert.match(text, /User declined to open the URL/);
    assert.match(text, /User cancelled the URL elicitation/);
    await shoot('elicitation-url-declined');
  } finally {
    await removeServer(id);
  }
});

test('a link a server asks to open is refused unless https (or http to this computer), and a look-alike name shows both forms', async () => {
  const id = await addTrustedEverything();
  try {
    fake.script([
      { chunks: [functionCallChunk([
        { name: 'mcp_everything_trigger_url_elicitation', args: { url: 'javascript:alert(document.domain)', message: 'Script me.' } },
        { name: 'mcp_everything_trigger_url_elicitation', args: { url: 'https://\u0430pple.com/login', message: 'Look-alike.' } },
      ])] },
      { chunks: textChunks('Done.') },
    ]);
    await send('Odd links');
    const script = page.getByTestId('elicitation').filter({ hasText: 'Script me.' });
    const lookalike = page.getByTestId('elicitation').filter({ hasText: 'Look-alike.' });
    await script.waitFor();
    await lookalike.waitFor();
    assert.match(await script.getByTestId('elicitation-refused').innerText(), /javascript: link; only https links/);
    assert.equal(await script.getByRole('button', { name: 'Accept' }).count(), 0, 'nothing to accept');
    assert.equal(await script.locator('a').count(), 0, 'no link to click');
    assert.equal(await lookalike.getByTestId('elicitation-host').innerText(), 'xn--pple-43d.com');
    assert.match(await lookalike.getByTestId('elicitation-host-unicode').innerText(), /\u0430pple\.com/);
    await shoot('elicitation-url-refused');
    await script.getByRole('button', { name: 'Decline' }).click();
    await lookalike.getByRole('button', { name: 'Decline' }).click();
    await lastReply().filter({ hasText: 'Done.' }).waitFor();
  } finally {
    await removeServer(id);
  }
});

test('a connection lost mid-stream keeps the partial text, marked incomplete; the next message works', async () => {
  const chunks = textChunks('This answer will be cut off before it ends, sadly.', { size: 8 });
  fake.script([
    { chunks: chunks.slice(0, 3), cut: true },
    { chunks: textChunks('Back again.') },
  ]);
  await send('Tell me something');
  const reply = lastReply();
  await reply.and(page.locator('[data-state="incomplete"]')).waitFor();
  assert.match(await reply.innerText(), /^This answer will be cut\n+Incomplete/);
  const error = page.getByTestId('error');
  await error.waitFor();
  assert.match(await error.innerText(), /connection .*lost/i);
  await page.getByTestId('send').waitFor();
  await shoot('connection-lost');

  await send('Are you there?');
  await lastReply().filter({ hasText: 'Back again.' }).and(page.locator('[data-state="done"]')).waitFor();
  const [, second] = chatRequests();
  // The partial answer is part of the history sent next.
  assert.deepEqual(second.body.contents.map((c) => c.role), ['user', 'model', 'user']);
  assert.equal(second.body.contents[1].parts.map((p) => p.text).join(''), 'This answer will be cut ');
});

test('an elicitation form lists its fields in the order of the requested schema', async () => {
  const id = await addTrustedEverything();
  try {
    fake.script([
      { chunks: [functionCallChunk([{ name: 'mcp_everything_trigger_elicitation_request', args: {} }])] },
      { chunks: textChunks('Noted.') },
    ]);
    await send('Ask me everything');
    const card = page.getByTestId('elicitation');
    await card.waitFor();
    const order = await card.locator('[data-field]').evaluateAll((els) => els.map((e) => e.dataset.field));
    assert.deepEqual(order, [
      'name', 'check', 'firstLine', 'email', 'homepage', 'birthdate', 'integer', 'number',
      'untitledSingleSelectEnum', 'untitledMultipleSelectEnum', 'titledSingleSelectEnum',
      'titledMultipleSelectEnum', 'legacyTitledEnum',
    ]);
    await shoot('elicitation-form-order');
    await card.getByRole('button', { name: 'Cancel' }).click();
    await lastReply().filter({ hasText: 'Noted.' }).waitFor();
  } finally {
    await removeServer(id);
  }
});

/** 100 tools of one test server; the seventh has a weather forecast among them. */
function hundredTools(server) {
  return Array.from({ length: 100 }, (_, j) => (server === 7 && j === 42
    ? {
      name: 'get_forecast',
      description: 'Weather forecast for a city: temperature and chance of rain, by day.',
      inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    }
    : {
      name: `ledger_${server}_${j}`,
      description: `Bookkeeping entry ${j} of ledger ${server}: posts, voids or reconciles an invoice line.`,
      inputSchema: { type: 'object', properties: { invoice: { type: 'string' }, amount: { type: 'number' } } },
    }));
}

const declared = (req) => (req.body.tools ?? []).flatMap((t) => t.functionDeclarations ?? []).map((d) => d.name);

test('ten servers with 100 tools each: a request declares a few, search_tools finds the seventh server\'s tool, and it runs', async () => {
  const servers = [];
  const ids = [];
  try {
    for (let k = 1; k <= 10; k++) {
      servers.push(await startSlowServer({ delayMs: 0, name: `server${k}`, tools: hundredTools(k) }));
    }
    for (const [i, server] of servers.entries()) {
      const id = `srv_${(i + 1).toString(16).padStart(16, '0')}`;
      const added = await chat.request({
        type: 'edit_settings',
        edit: { type: 'add_server', id, server: { name: `server${i + 1}`, url: server.url } },
      });
      assert.equal(added.type, 'settings', JSON.stringify(added));
      ids.push(id);
    }
    await chat.request({ type: 'edit_settings', edit: { type: 'set_trust', id: ids[6], trust: true } });
    await reload();

    const wanted = 'mcp_server7_get_forecast';
    fake.script([
      { chunks: [functionCallChunk([{ name: 'search_tools', args: { query: 'weather forecast rain' } }])] },
      { chunks: [functionCallChunk([{ name: wanted, args: { city: 'Kyoto' } }])] },
      { chunks: textChunks('Take an umbrella: rain is likely.') },
    ]);
    await send('Will I need an umbrella in Kyoto tomorrow?');
    await lastReply().filter({ hasText: 'Take an umbrella' }).and(page.locator('[data-state="done"]')).waitFor({ timeout: 30_000 });

    const [first, second, third] = chatRequests();
    // Every request stays far inside the API's 512 declarations; the wanted tool is not among
    // the first one's (the question shares no word with it) but search_tools is.
    for (const req of [first, second, third]) {
      const names = declared(req);
      assert.ok(names.length <= 129, `${names.length} declarations`);
      assert.ok(names.includes('search_tools'), 'search_tools is declared while tools are left out');
    }
    assert.ok(!declared(first).includes(wanted), 'the first request does not declare the forecast');
    // The search was answered inside the chat and found the tool, declared in the next request.
    const [found] = functionResponses(second);
    assert.equal(found.name, 'search_tools');
    assert.match(JSON.stringify(found.response), new RegExp(wanted));
    assert.ok(declared(second).includes(wanted), 'the next request declares what search found');
    // The call reached the seventh server, and its answer went back to the model.
    const [answer] = functionResponses(third);
    assert.equal(answer.name, wanted);
    assert.match(JSON.stringify(answer.response), /server7: get_forecast/);

    const card = page.getByTestId('tool-card').last();
    assert.equal(await card.getAttribute('data-state'), 'done');
    assert.equal(await card.getByTestId('found-by-search').innerText(), 'found by search');
    const sent = page.getByTestId('tools-sent');
    // The thousand tools of the servers, and the browser's seven.
    assert.equal(await sent.getAttribute('data-enabled'), '1007');
    assert.ok(Number(await sent.getAttribute('data-sent')) < 1000);
    assert.match(await sent.innerText(), /^\d+ of 1,007 tools sent · the rest by search$/);
    await shoot('thousand-tools');
  } finally {
    for (const id of ids) await removeServer(id);
    for (const server of servers) await server.stop();
  }
});
