// The side panel's chat end to end: the built extension in Chromium talking to the fake Gemini
// API (tests/fixtures/fake-gemini) and, for tools, to a real MCP server (server-everything)
// through the worker. Every request the panel sends is recorded and asserted on.
import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { openChat, API_KEY } from './chat_page.mjs';
import { textChunks, rateLimited, functionCallChunk, apiError } from '../fixtures/fake-gemini/server.mjs';

let chat;
let fake;
let page;

before(async () => {
  chat = await openChat();
  ({ fake, page } = chat);
});
after(async () => { await chat?.close(); });
beforeEach(async () => {
  fake.reset();
  await chat.reload();
});

const request = (req) => chat.request(req);
const send = (text) => chat.send(text);
const shoot = (name) => chat.shoot(name);
const chatRequests = () => chat.chatRequests();
const lastReply = () => chat.lastReply();
const addEverything = () => chat.addEverything();
const removeServer = (id) => chat.removeServer(id);

test('a streamed reply is rendered as markdown, raw HTML as text', async () => {
  const answer = '## Result\n\nHere is **bold** and a [link](https://example.com).\n\n'
    + '```js\nconsole.log("hi");\n```\n\n- one\n- two\n\n<img src=x onerror=alert(1)>';
  fake.script([{ chunks: textChunks(answer, { size: 12 }), delayMs: 5 }]);
  await send('Show me markdown');
  await lastReply().and(page.locator('[data-state="done"]')).waitFor();
  const reply = lastReply();
  assert.equal(await reply.locator('h3').innerText(), 'Result');
  assert.equal(await reply.locator('strong').innerText(), 'bold');
  const link = reply.locator('a[href="https://example.com"]');
  assert.equal(await link.getAttribute('target'), '_blank');
  assert.match(await link.getAttribute('rel'), /noopener/);
  assert.equal(await reply.locator('pre code').innerText(), 'console.log("hi");');
  assert.equal(await reply.locator('img').count(), 0, 'raw HTML is never injected');
  assert.match(await reply.innerText(), /<img src=x onerror=alert\(1\)>/);

  const [req] = chatRequests();
  assert.equal(req.path, '/v1beta/models/gemini-3.8-flash:streamGenerateContent?alt=sse');
  assert.equal(req.headers['x-goog-api-key'], API_KEY);
  assert.deepEqual(req.body.contents, [{ role: 'user', parts: [{ text: 'Show me markdown' }] }]);
  await shoot('markdown');
});

test('a reply nested far past the markdown bound renders within the panel\'s stack, and the chat goes on', async () => {
  // Each wasm module has a 256 KB stack (.cargo/config.toml); an overflow would trap the panel.
  const quotes = Array.from({ length: 200 }, (_, i) => `${'> '.repeat(i + 1)}level ${i + 1}`).join('\n');
  const list = Array.from({ length: 200 }, (_, i) => `${'  '.repeat(i)}- item ${i + 1}`).join('\n');
  const answer = `${quotes}\n\n${list}\n\nThe end.`;
  fake.script([{ chunks: textChunks(answer, { size: 400 }) }, { chunks: textChunks('Still here.') }]);
  await send('Nest deeply');
  await lastReply().and(page.locator('[data-state="done"]')).waitFor();
  assert.match(await lastReply().innerText(), /The end\./);
  assert.ok(await lastReply().locator('blockquote').count() > 0, 'the quotes are quotes');
  await send('Are you there?');
  await lastReply().filter({ hasText: 'Still here.' }).and(page.locator('[data-state="done"]')).waitFor();
});

test('Stop ends the stream and keeps the partial text, marked incomplete', async () => {
  const long = 'word '.repeat(400);
  fake.script([{ chunks: textChunks(long, { size: 10 }), delayMs: 40 }]);
  await send('Talk for a while');
  await page.waitForFunction(() => {
    const replies = document.querySelectorAll('[data-testid="reply"]');
    return replies.length && replies[replies.length - 1].innerText.length > 30;
  });
  await page.getByTestId('stop').click();
  await lastReply().and(page.locator('[data-state="incomplete"]')).waitFor();
  await page.getByTestId('send').waitFor();
  const text = await lastReply().innerText();
  assert.ok(text.length < long.length, 'the stream was cut');
  assert.match(await page.locator('.notice').last().innerText(), /Stopped/);
  await shoot('stopped');
});

test('a 429 is retried after the delay the API asked for, then the answer arrives', async () => {
  fake.script([rateLimited(1), { chunks: textChunks('Recovered after the limit.') }]);
  await send('Hello');
  const retrying = page.getByTestId('retrying');
  await retrying.waitFor();
  assert.match(await retrying.innerText(), /Retrying in 1 s/);
  assert.match(await retrying.innerText(), /You exceeded your current quota/);
  await shoot('retrying');
  await lastReply().and(page.locator('[data-state="done"]')).waitFor();
  assert.equal(await lastReply().innerText(), 'Recovered after the limit.');
  assert.equal(chatRequests().length, 2);
});

test('an API error is shown with its own message', async () => {
  fake.script([{ status: 400, body: apiError(400, 'INVALID_ARGUMENT', 'Request contains an invalid argument.') }]);
  await send('Break it');
  const error = page.getByTestId('error');
  await error.waitFor();
  assert.match(await error.innerText(), /Request contains an invalid argument/);
  await page.getByTestId('send').waitFor();
  await shoot('error-400');
});

test('a chat is saved, listed, reopened, renamed and deleted', async () => {
  fake.script([{ chunks: textChunks('Saved answer.') }]);
  await send('Remember this chat');
  await lastReply().and(page.locator('[data-state="done"]')).waitFor();
  await page.getByTestId('new-chat').click();
  await page.locator('.empty').waitFor();

  await page.getByTestId('history').click();
  const row = page.getByTestId('saved-chat').filter({ hasText: 'Remember this chat' });
  await row.waitFor();
  await shoot('history');
  await row.locator('button.open').click();
  await lastReply().waitFor();
  assert.equal(await lastReply().innerText(), 'Saved answer.');
  assert.match(await page.locator('.entry.user').first().innerText(), /Remember this chat/);

  // Continuing the reopened chat sends its history.
  fake.script([{ chunks: textChunks('Still here.') }]);
  await send('And now?');
  await lastReply().filter({ hasText: 'Still here.' }).waitFor();
  const [req] = chatRequests().slice(-1);
  assert.deepEqual(req.body.contents.map((c) => c.role), ['user', 'model', 'user']);

  await page.getByTestId('history').click();
  await row.locator('button[aria-label="Rename"]').click();
  const input = page.getByTestId('rename-input');
  await input.fill('Renamed chat');
  await input.press('Enter');
  const renamed = page.getByTestId('saved-chat').filter({ hasText: 'Renamed chat' });
  await renamed.waitFor();
  // The renamed chat is the open one: its next save keeps the new title (it wrote the old
  // one back).
  await page.getByTestId('history').click();
  fake.script([{ chunks: textChunks('Renamed, still here.') }]);
  await send('And after the rename?');
  await lastReply().filter({ hasText: 'Renamed, still here.' }).and(page.locator('[data-state="done"]')).waitFor();
  // Saved with the turn:
  await page.waitForFunction(async () => Object.entries(await chrome.storage.local.get(null))
    .some(([key, value]) => key.startsWith('chat:') && value.includes('Renamed, still here.')));
  const index = JSON.parse((await page.evaluate(() => chrome.storage.local.get('chats'))).chats);
  assert.ok(index.some((c) => c.title === 'Renamed chat'), JSON.stringify(index));
  await page.getByTestId('history').click();
  await renamed.locator('button[aria-label="Delete"]').click();
  await renamed.waitFor({ state: 'detached' });
  const stored = await page.evaluate(() => chrome.storage.local.get('chats'));
  assert.ok(!JSON.parse(stored.chats).some((c) => c.title === 'Renamed chat'));
});

test('two side panels saving at once lose no chat; a damaged history index is rebuilt from the chats', async () => {
  const other = await chat.browser.context.newPage();
  await other.goto(chat.browser.url('sidepanel.html'));
  await other.getByTestId('worker-status').and(other.locator('[data-state="ok"]')).waitFor();
  const panels = [page, other];
  const rounds = 4;
  fake.script(Array.from({ length: rounds * panels.length }, () => ({ chunks: textChunks('Noted.') })));
  for (let round = 0; round < rounds; round++) {
    await Promise.all(panels.map(async (panel, n) => {
      await panel.getByTestId('new-chat').click();
      const input = panel.getByTestId('input');
      await input.fill(`panel ${n} chat ${round}`);
      await input.press('Enter');
      await panel.getByTestId('reply').last().and(panel.locator('[data-state="done"]')).waitFor();
    }));
  }
  const titles = async () => {
    const stored = await page.evaluate(() => chrome.storage.local.get('chats'));
    return JSON.parse(stored.chats).map((c) => c.title);
  };
  const expected = panels.flatMap((_, n) => Array.from({ length: rounds }, (_, r) => `panel ${n} chat ${r}`));
  // Saves finish a moment after the reply is shown.
  for (let i = 0; i < 50; i++) {
    const now = await titles();
    if (expected.every((t) => now.some((title) => title.startsWith(t)))) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  const saved = await titles();
  for (const title of expected) assert.ok(saved.some((t) => t.startsWith(title)), `${title} lost: ${saved}`);
  await other.close();

  // A damaged index is kept aside and rebuilt from the chat:<id> entries.
  await page.evaluate(() => chrome.storage.local.set({ chats: '{"this is": not JSON' }));
  await page.reload();
  await page.getByTestId('worker-status').and(page.locator('[data-state="ok"]')).waitFor();
  await page.getByTestId('history').click();
  await page.getByTestId('saved-chat').filter({ hasText: 'panel 1 chat 3' }).waitFor();
  assert.equal(await page.getByTestId('saved-chat').count(), (await titles()).length);
  const all = await page.evaluate(() => chrome.storage.local.get(null));
  const kept = Object.keys(all).filter((k) => k.startsWith('chats_rejected_'));
  assert.equal(kept.length, 1, 'the damaged index is kept');
  assert.equal(all[kept[0]], '{"this is": not JSON');
  for (const title of expected) assert.ok((await titles()).some((t) => t.startsWith(title)), `${title} not rebuilt`);
  await page.getByTestId('new-chat').click();
});

test('the model calls an MCP tool, the person allows it, the result goes back to the model', async () => {
  const id = await addEverything();
  try {
    await page.reload();
    await page.getByTestId('worker-status').and(page.locator('[data-state="ok"]')).waitFor();
    fake.script([
      { chunks: [functionCallChunk([{ id: 'fc1', name: 'mcp_everything_echo', args: { message: 'hello tools' } }])] },
      { chunks: textChunks('The server echoed: hello tools.') },
    ]);
    await send('Echo something');
    const card = page.getByTestId('tool-card').last();
    await card.and(page.locator('[data-state="confirm"]')).waitFor();
    const first = chatRequests()[0].body;
    const names = first.tools[0].functionDeclarations.map((d) => d.name);
    assert.ok(names.includes('mcp_everything_echo'), names.join());
    await shoot('tool-confirm');
    await card.getByRole('button', { name: 'Allow once' }).click();
    await lastReply().filter({ hasText: 'The server echoed' }).and(page.locator('[data-state="done"]')).waitFor();
    assert.equal(await card.getAttribute('data-state'), 'done');

    const second = chatRequests()[1].body;
    const turn = second.contents[second.contents.length - 1];
    assert.equal(turn.role, 'user');
    const { functionResponse } = turn.parts[0];
    assert.equal(functionResponse.name, 'mcp_everything_echo');
    assert.equal(functionResponse.id, 'fc1');
    assert.match(JSON.stringify(functionResponse.response), /Echo: hello tools/);
    // The model's turn is sent back verbatim, with its thought signature.
    const modelTurn = second.contents[second.contents.length - 2];
    assert.ok(modelTurn.parts[0].thoughtSignature);
    await card.locator('summary').click();
    await shoot('tool-done');
  } finally {
    await removeServer(id);
  }
});

test('a denied tool call is answered to the model as an error', async () => {
  const id = await addEverything();
  try {
    await page.reload();
    await page.getByTestId('worker-status').and(page.locator('[data-state="ok"]')).waitFor();
    fake.script([
      { chunks: [functionCallChunk([{ name: 'mcp_everything_echo', args: { message: 'no' } }])] },
      { chunks: textChunks('Understood, I will not run it.') },
    ]);
    await send('Try a tool');
    const card = page.getByTestId('tool-card').last();
    await card.and(page.locator('[data-state="confirm"]')).waitFor();
    await card.getByRole('button', { name: 'Deny' }).click();
    await lastReply().filter({ hasText: 'Understood' }).waitFor();
    assert.equal(await card.getAttribute('data-state'), 'denied');
    const second = chatRequests()[1].body;
    const { functionResponse } = second.contents[second.contents.length - 1].parts[0];
    assert.match(functionResponse.response.error, /denied/);
    await shoot('tool-denied');
  } finally {
    await removeServer(id);
  }
});

test('without an API key the chat says so and links to the settings', async () => {
  await request({ type: 'edit_settings', edit: { type: 'set_api_key', api_key: null } });
  try {
    await page.reload();
    await page.getByTestId('worker-status').and(page.locator('[data-state="ok"]')).waitFor();
    await page.locator('.empty [data-testid="open-settings"]').waitFor();
    assert.match(await page.locator('.empty').innerText(), /Add your Gemini API key/);
    await send('Hello?');
    const error = page.getByTestId('error');
    await error.waitFor();
    assert.match(await error.innerText(), /No Gemini API key is set/);
    assert.equal(await error.getByTestId('open-settings').getAttribute('href'), 'popup.html');
    assert.equal(chatRequests().length, 0, 'nothing was sent without a key');
    await page.getByTestId('send').waitFor();
    await shoot('missing-key');
  } finally {
    await request({ type: 'edit_settings', edit: { type: 'set_api_key', api_key: API_KEY } });
  }
});

test('with a key set, the empty chat offers the composer\'s menus instead of asking for a key', async () => {
  await page.reload();
  await page.getByTestId('worker-status').and(page.locator('[data-state="ok"]')).waitFor();
  const empty = page.locator('.empty');
  await empty.filter({ hasText: 'Type @' }).waitFor();
  assert.doesNotMatch(await empty.innerText(), /API key/);
  assert.equal(await empty.getByTestId('open-settings').count(), 0);
  await shoot('empty-with-key');
});

test('Google Search goes with the MCP tools on Gemini 3 and later; older models and Gemma turn them off, with the reason shown', async () => {
  const id = await addEverything();
  try {
    await page.reload();
    await page.getByTestId('worker-status').and(page.locator('[data-state="ok"]')).waitFor();
    await page.getByTestId('google-search').check();
    assert.equal(await page.getByTestId('tools-off').count(), 0, 'gemini-3.8-flash combines them');
    fake.script([{ chunks: textChunks('Grounded answer.') }, { chunks: textChunks('Search only.') }, { chunks: textChunks('Gemma answer.') }]);
    await send('Search the web');
    await lastReply().filter({ hasText: 'Grounded answer.' }).waitFor();
    const both = chatRequests()[0].body;
    assert.deepEqual(both.tools[0], { googleSearch: {} });
    assert.ok(both.tools[1].functionDeclarations.some((d) => d.name === 'mcp_everything_echo'));
    // https://ai.google.dev/gemini-api/docs/generate-content/tool-combination
    assert.deepEqual(both.toolConfig, { includeServerSideToolInvocations: true });
    await shoot('search-on');

    await page.getByTestId('model').selectOption('gemma-3-27b-it');
    assert.match(await page.getByTestId('tools-off').innerText(), /Google Search/);
    await send('Search again');
    await lastReply().filter({ hasText: 'Search only.' }).waitFor();
    assert.deepEqual(chatRequests()[1].body.tools, [{ googleSearch: {} }]);
    assert.equal(chatRequests()[1].body.toolConfig, undefined);

    await page.getByTestId('google-search').uncheck();
    assert.match(await page.getByTestId('tools-off').innerText(), /cannot call functions/);
    await send('Hi Gemma');
    await lastReply().filter({ hasText: 'Gemma answer.' }).waitFor();
    const gemma = chatRequests()[2];
    assert.match(gemma.path, /models\/gemma-3-27b-it:streamGenerateContent/);
    assert.equal(gemma.body.tools, undefined);
  } finally {
    await removeServer(id);
  }
});

test('a server asks a question during a trusted tool call; the form answer reaches it', async () => {
  const id = await addEverything();
  await request({ type: 'edit_settings', edit: { type: 'set_trust', id, trust: true } });
  try {
    await page.reload();
    await page.getByTestId('worker-status').and(page.locator('[data-state="ok"]')).waitFor();
    fake.script([
      { chunks: [functionCallChunk([{ name: 'mcp_everything_trigger_elicitation_request', args: {} }])] },
      { chunks: textChunks('Thanks, Ada.') },
    ]);
    await send('Ask me something');
    const card = page.getByTestId('elicitation');
    await card.waitFor();
    // A trusted server's tool runs without a confirmation card.
    assert.equal(await page.getByTestId('tool-card').last().getAttribute('data-state'), 'running');
    await card.getByRole('button', { name: 'Accept' }).click();
    assert.match(await card.innerText(), /Please fill in: String/);
    await card.locator('[data-field="name"] input').fill('Ada');
    await shoot('elicitation');
    await card.getByRole('button', { name: 'Accept' }).click();
    await lastReply().filter({ hasText: 'Thanks, Ada.' }).waitFor();
    const second = chatRequests()[1].body;
    const { functionResponse } = second.contents[second.contents.length - 1].parts[0];
    assert.match(JSON.stringify(functionResponse.response), /Name: Ada/);
    assert.match(JSON.stringify(functionResponse.response), /Favorite Integer: 42/, 'defaults are sent');
  } finally {
    await removeServer(id);
  }
});

/** Markdown of about `chars` characters: headings, paragraphs, lists, code. */
function longMarkdown(chars) {
  const parts = [];
  let n = 0;
  for (let i = 0; n < chars; i++) {
    const piece = i % 4 === 0 ? `## Section ${i}\n\n`
      : i % 4 === 1 ? `Paragraph ${i} with **bold**, *italic* and \`code\`, long enough to wrap once or twice in the panel.\n\n`
      : i % 4 === 2 ? `- item ${i}\n- another item\n\n`
      : `\`\`\`rust\nfn f${i}() -> u32 { ${i} }\n\`\`\`\n\n`;
    parts.push(piece);
    n += piece.length;
  }
  return parts.join('').slice(0, chars);
}

test('a long reply costs no more per chunk at its end than at its start', async () => {
  const text = longMarkdown(50_000);
  fake.script([{ chunks: textChunks(text, { size: 20 }), delayMs: 2 }]);
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Performance.enable');
  const samples = [];
  await send('Write a lot');
  // (main-thread script time, characters shown) while the reply arrives.
  for (;;) {
    const { metrics } = await cdp.send('Performance.getMetrics');
    const script = metrics.find((m) => m.name === 'ScriptDuration').value;
    const { chars, done } = await page.evaluate(() => {
      const replies = document.querySelectorAll('[data-testid="reply"]');
      const reply = replies[replies.length - 1];
      return { chars: reply?.textContent.length ?? 0, done: reply?.dataset.state === 'done' };
    });
    samples.push({ script, chars });
    if (done) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  await cdp.detach();
  const shown = samples[samples.length - 1].chars;
  const costPerChar = (from, to) => {
    const inside = samples.filter((s) => s.chars >= from && s.chars <= to);
    const [a, b] = [inside[0], inside[inside.length - 1]];
    return (b.script - a.script) / Math.max(1, b.chars - a.chars);
  };
  const early = costPerChar(0, shown * 0.4);
  const late = costPerChar(shown * 0.6, shown);
  console.log(`script time per 1000 characters: early ${(early * 1e6).toFixed(1)} ms, late ${(late * 1e6).toFixed(1)} ms`);
  assert.ok(late / early <= 2, `late/early = ${(late / early).toFixed(2)}`);
});
