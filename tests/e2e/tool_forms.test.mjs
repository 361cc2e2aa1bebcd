// The tool browser's form for a tool whose input schema nests: an object with properties is a
// group of fields, an array of strings or of objects a list of items with Add and Remove, and
// the arguments the server receives have the schema's shape. The server is a stateless JSON
// MCP server (protocol 2026-07-28) in this process that records every tools/call.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { openChat } from './chat_page.mjs';

const SHIP = {
  name: 'ship',
  description: 'Ships an order',
  inputSchema: {
    type: 'object',
    required: ['address', 'lines'],
    properties: {
      address: {
        type: 'object', title: 'Address', description: 'Where it goes', required: ['city'],
        properties: { city: { type: 'string', title: 'City' }, zip: { type: 'integer' } },
      },
      tags: { type: 'array', items: { type: 'string' }, maxItems: 3, description: 'Up to three' },
      lines: {
        type: 'array', title: 'Lines', minItems: 1,
        items: {
          type: 'object', required: ['sku'],
          properties: { sku: { type: 'string' }, qty: { type: 'number' }, gift: { type: 'boolean' } },
        },
      },
      meta: { type: 'object', description: 'Anything else, as JSON' },
    },
  },
};

async function startFormServer() {
  const calls = [];
  const server = http.createServer(async (req, res) => {
    let body = '';
    for await (const chunk of req) body += chunk;
    if (req.method !== 'POST') { res.writeHead(405).end(); return; }
    const message = JSON.parse(body);
    if (message.id === undefined) { res.writeHead(202).end(); return; }
    const reply = (result) => res.writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result }));
    const p = message.params ?? {};
    switch (message.method) {
      case 'server/discover':
        return reply({
          supportedVersions: ['2026-07-28'],
          capabilities: { tools: {} },
          _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'forms', version: '1.0.0' } },
        });
      case 'tools/list':
        return reply({ tools: [SHIP] });
      case 'tools/call':
        calls.push({ name: p.name, arguments: p.arguments });
        return reply({ content: [{ type: 'text', text: 'shipped' }] });
      default:
        res.writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ jsonrpc: '2.0', id: message.id, error: { code: -32601, message: 'Method not found' } }));
    }
  });
  await new Promise((resolve) => server.listen({ port: 0, host: '127.0.0.1' }, resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}/mcp`,
    calls: () => [...calls],
    stop: () => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

let chat;
let forms;
/** The text input of a list's item `n` (counted from 1, as the form shows it). */
const item = (list, n) => list.getByRole('textbox', { name: `Item ${n}`, exact: true });

before(async () => {
  forms = await startFormServer();
  chat = await openChat();
  const added = await chat.request({
    type: 'edit_settings',
    edit: { type: 'add_server', id: `srv_${'f'.repeat(16)}`, server: { name: 'Forms', url: forms.url } },
  });
  assert.equal(added.type, 'settings', JSON.stringify(added));
  await chat.reload();
});
after(async () => {
  await chat?.close();
  await forms?.stop();
});

test('a nested schema is a form of groups and lists, and the server gets its shape', async () => {
  const page = chat.page;
  await page.getByTestId('tools').click();
  const browser = page.getByTestId('tool-browser');
  await browser.locator('[data-server="Forms"] summary').click();
  await browser.locator('[data-testid="tool-entry"][data-tool="ship"]').click();
  const runner = page.getByTestId('tool-runner');
  const address = runner.getByRole('group', { name: 'Address *' });
  await address.waitFor();
  assert.match(await address.innerText(), /Where it goes/);

  // Nothing typed: the nested required field is named by its path.
  await runner.getByTestId('tool-run').click();
  await runner.getByRole('alert').filter({ hasText: 'address.city' }).waitFor();
  assert.equal(forms.calls().length, 0);

  await address.getByLabel('City').fill('Kyoto');
  await address.getByLabel('zip').fill('6008216');
  // Tags: two added, the first removed; one line starts there (minItems 1) and cannot go.
  const tags = runner.getByRole('group', { name: 'tags' });
  await tags.getByRole('button', { name: 'Add item' }).click();
  await item(tags, 1).fill('fragile');
  await tags.getByRole('button', { name: 'Add item' }).click();
  await item(tags, 2).fill('gift');
  await tags.getByRole('button', { name: 'Remove item 1' }).click();
  assert.equal(await item(tags, 1).inputValue(), 'gift');
  assert.equal(await item(tags, 2).count(), 0);
  const lines = runner.getByRole('group', { name: 'Lines *' });
  assert.ok(await lines.getByRole('button', { name: 'Remove item 1' }).isDisabled(), 'minItems 1');
  const line = lines.getByRole('group', { name: 'Item 1' });
  await line.getByLabel('sku *').fill('A-1');
  await line.getByLabel('qty').fill('2.5');
  await line.getByLabel('gift').check();
  // The Add of a list is reached from the keyboard.
  await lines.getByRole('button', { name: 'Add item' }).focus();
  await page.keyboard.press('Enter');
  await lines.getByRole('group', { name: 'Item 2' }).waitFor();
  await lines.getByRole('button', { name: 'Remove item 2' }).click();
  await runner.locator('[data-field="meta"] textarea').fill('{"rush": true}');
  await address.scrollIntoViewIfNeeded();
  await chat.shoot('tool-form-nested-top');
  await runner.getByTestId('tool-run').scrollIntoViewIfNeeded();
  await chat.shoot('tool-form-nested');

  const expected = {
    address: { city: 'Kyoto', zip: 6008216 },
    tags: ['gift'],
    lines: [{ sku: 'A-1', qty: 2.5, gift: true }],
    meta: { rush: true },
  };
  await runner.getByTestId('tool-run').click();
  await runner.getByTestId('tool-card').first().and(page.locator('[data-state="done"]')).waitFor({ timeout: 20_000 });
  assert.deepEqual(forms.calls().at(-1), { name: 'ship', arguments: expected });

  // Raw JSON shows the same value; edited, it fills the form again when it fits.
  await runner.getByTestId('tool-raw-toggle').click();
  const raw = runner.getByTestId('tool-raw');
  assert.deepEqual(JSON.parse(await raw.inputValue()), expected);
  await raw.fill(JSON.stringify({ ...expected, address: { city: 'Nara' }, tags: ['a', 'b'] }));
  await runner.getByTestId('tool-raw-toggle').click();
  assert.equal(await address.getByLabel('City').inputValue(), 'Nara');
  assert.equal(await address.getByLabel('zip').inputValue(), '');
  assert.equal(await item(tags, 2).inputValue(), 'b');
  // A value the form cannot show keeps the raw JSON, and says where.
  await runner.getByTestId('tool-raw-toggle').click();
  await raw.fill(JSON.stringify({ address: { city: 'Nara', floor: 3 }, lines: [{ sku: 'B' }] }));
  await runner.getByTestId('tool-raw-toggle').click();
  await runner.getByRole('alert').filter({ hasText: 'address.floor' }).waitFor();
  assert.equal(await raw.count(), 1, 'still raw JSON');
  await runner.getByTestId('tool-run').click();
  await runner.getByTestId('tool-card').first().and(page.locator('[data-state="done"]')).waitFor({ timeout: 20_000 });
  assert.deepEqual(forms.calls().at(-1).arguments, { address: { city: 'Nara', floor: 3 }, lines: [{ sku: 'B' }] });
});
