// The fake Gemini server against the official @google/genai SDK: what the fake sends, the SDK
// parses; what the SDK sends has the shape GemiPanel's Rust types produce
// (core/tests/data/gemini/sdk_request_function_response.json, written by the Rust test
// `gemini_wire::request_matches_the_shared_sdk_fixture`).
//
// Run: node --test tests/e2e-node/

import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { GoogleGenAI, ApiError } from '@google/genai';
import {
  startFakeGemini, textChunks, functionCallChunk, rateLimited, defaultModels, LIMITS, schemaDepth,
} from '../fixtures/fake-gemini/server.mjs';

const rustRequest = JSON.parse(readFileSync(
  new URL('../../core/tests/data/gemini/sdk_request_function_response.json', import.meta.url), 'utf8'));
// The request GemiPanel's chat sends with all 456 corpus tools enabled (written by the Rust test
// `tools_budget::the_budgeted_request_fixture_is_what_the_chat_sends`), and the corpus itself.
const budgetedRequest = JSON.parse(readFileSync(
  new URL('../../core/tests/data/tools/budgeted_request.json', import.meta.url), 'utf8'));
const toolCorpus = JSON.parse(readFileSync(
  new URL('../../core/tests/data/tools/corpus.json', import.meta.url), 'utf8'));

let fake;
let ai;

before(async () => {
  fake = await startFakeGemini({ apiKey: 'test-key', modelsPageSize: 2 });
  // SDK 3.x defaults to /v1; GemiPanel speaks v1beta (parametersJsonSchema, thought signatures).
  ai = new GoogleGenAI({ apiKey: 'test-key', httpOptions: { baseUrl: fake.url, apiVersion: 'v1beta' } });
});
after(() => fake.close());
beforeEach(() => fake.reset());

async function collect(stream) {
  const chunks = [];
  for await (const chunk of stream) chunks.push(chunk);
  return chunks;
}

test('streams text the SDK reassembles, and records the request it sent', async () => {
  fake.script([{ chunks: textChunks('Hello, world! This arrives in pieces.', { size: 6, thoughts: 'Planning.' }) }]);
  const chunks = await collect(await ai.models.generateContentStream({
    model: 'gemini-2.5-flash',
    contents: 'Hi',
    config: { thinkingConfig: { includeThoughts: true } },
  }));
  assert.equal(chunks.map((c) => c.text ?? '').join(''), 'Hello, world! This arrives in pieces.');
  const thought = chunks[0].candidates[0].content.parts[0];
  assert.deepEqual(thought, { text: 'Planning.', thought: true });
  const last = chunks.at(-1);
  assert.equal(last.candidates[0].finishReason, 'STOP');
  assert.equal(last.usageMetadata.totalTokenCount, 11);

  const [request] = fake.requests();
  assert.equal(request.method, 'POST');
  assert.equal(request.path, '/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse');
  assert.equal(request.headers['x-goog-api-key'], 'test-key');
  assert.match(request.headers['content-type'], /application\/json/);
  assert.deepEqual(request.body.contents, [{ role: 'user', parts: [{ text: 'Hi' }] }]);
  assert.deepEqual(request.body.generationConfig, { thinkingConfig: { includeThoughts: true } });
});

test('function calls with thought signatures round-trip into the request GemiPanel sends', async () => {
  const args = { city: 'Tokyo' };
  fake.script([
    { chunks: [functionCallChunk([{ id: 'fc-1', name: 'mcp_weather_get_forecast', args }])] },
    { chunks: textChunks('21 degrees and clear.') },
  ]);
  const declaration = rustRequest.tools[0].functionDeclarations[0];
  const config = {
    systemInstruction: 'Be brief.',
    thinkingConfig: { includeThoughts: true },
    tools: [{ functionDeclarations: [{
      name: declaration.name,
      description: declaration.description,
      parametersJsonSchema: declaration.parametersJsonSchema,
    }] }],
  };
  const user = { role: 'user', parts: [{ text: 'What is the weather in Tokyo?' }] };

  const first = await collect(await ai.models.generateContentStream({
    model: 'gemini-2.5-flash', contents: [user], config,
  }));
  assert.deepEqual(first[0].functionCalls, [{ id: 'fc-1', name: 'mcp_weather_get_forecast', args }]);
  const modelTurn = first[0].candidates[0].content;
  assert.equal(modelTurn.parts[0].thoughtSignature, 'EjQKMgG+Pvb7sig/+==');

  // The second step, written the SDK's way: the model turn verbatim, then the response by id.
  const response = {
    role: 'user',
    parts: [{ functionResponse: {
      id: 'fc-1', name: 'mcp_weather_get_forecast', response: { output: { temperature: 21, sky: 'clear' } },
    } }],
  };
  const second = await collect(await ai.models.generateContentStream({
    model: 'gemini-2.5-flash', contents: [user, modelTurn, response], config,
  }));
  assert.equal(second.map((c) => c.text ?? '').join(''), '21 degrees and clear.');

  const requests = fake.requests();
  assert.equal(requests.length, 2);
  // Same JSON as the Rust types serialise (key order aside).
  assert.deepEqual(requests[1].body, rustRequest);
});

test('parallel calls: only the first carries the signature, the SDK lists all calls', async () => {
  fake.script([{ chunks: [functionCallChunk([
    { id: 'a', name: 'mcp_s_one', args: { n: 1 } },
    { id: 'b', name: 'mcp_s_two', args: {} },
  ])] }]);
  const [chunk] = await collect(await ai.models.generateContentStream({ model: 'gemini-3-flash-preview', contents: 'go' }));
  assert.deepEqual(chunk.functionCalls.map((c) => c.id), ['a', 'b']);
  const parts = chunk.candidates[0].content.parts;
  assert.ok(parts[0].thoughtSignature);
  assert.equal(parts[1].thoughtSignature, undefined);
});

test('a 429 with RetryInfo is surfaced by the SDK with its status and retry delay', async () => {
  fake.script([rateLimited(20)]);
  await assert.rejects(
    async () => collect(await ai.models.generateContentStream({ model: 'gemini-2.5-flash', contents: 'x' })),
    (error) => {
      assert.ok(error instanceof ApiError, `${error}`);
      assert.equal(error.status, 429);
      const body = JSON.parse(error.message);
      assert.equal(body.error.status, 'RESOURCE_EXHAUSTED');
      const retry = body.error.details.find((d) => d['@type'] === 'type.googleapis.com/google.rpc.RetryInfo');
      assert.equal(retry.retryDelay, '20s');
      return true;
    },
  );
  assert.equal(fake.requests().length, 1, 'no hidden retries');
});

test('a wrong key is answered like the API does', async () => {
  const stranger = new GoogleGenAI({ apiKey: 'wrong', httpOptions: { baseUrl: fake.url, apiVersion: 'v1beta' } });
  await assert.rejects(
    async () => collect(await stranger.models.generateContentStream({ model: 'gemini-2.5-flash', contents: 'x' })),
    (error) => {
      assert.equal(error.status, 400);
      const body = JSON.parse(error.message);
      assert.equal(body.error.details[0].reason, 'API_KEY_INVALID');
      return true;
    },
  );
});

test('the model list is paginated and the SDK pages through it', async () => {
  const names = [];
  const pager = await ai.models.list({ config: { pageSize: 2 } });
  for await (const model of pager) names.push(model.name);
  assert.deepEqual(names, defaultModels().map((m) => m.name));
  const paths = fake.requests().map((r) => r.path);
  assert.equal(paths.length, 2);
  assert.match(paths[0], /^\/v1beta\/models\?pageSize=2$/);
  assert.match(paths[1], /pageToken=page-2/);
});

test('control endpoints script and report over HTTP; a cut stream stops mid-way', async () => {
  const script = await fetch(`${fake.url}/__script`, {
    method: 'POST',
    body: JSON.stringify({ replies: [{ chunks: textChunks('partial text here', { size: 4 }).slice(0, 2), cut: true }] }),
  });
  assert.deepEqual(await script.json(), { queued: 1 });
  const res = await fetch(`${fake.url}/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse`, {
    method: 'POST',
    headers: { 'x-goog-api-key': 'test-key', 'content-type': 'application/json' },
    body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'x' }] }] }),
  });
  assert.equal(res.headers.get('content-type'), 'text/event-stream');
  let text = '';
  await assert.rejects(async () => {
    const decoder = new TextDecoder();
    for await (const bytes of res.body) text += decoder.decode(bytes, { stream: true });
  });
  assert.equal(text.split('\r\n\r\n').filter(Boolean).length, 2);
  assert.ok(text.startsWith('data: {"candidates"'));

  const recorded = await (await fetch(`${fake.url}/__requests`)).json();
  assert.equal(recorded.length, 1);
  assert.deepEqual(recorded[0].body.contents[0].parts, [{ text: 'x' }]);

  // With no reply left, the fake says so instead of hanging.
  const none = await fetch(`${fake.url}/v1beta/models/m:streamGenerateContent?alt=sse`, {
    method: 'POST', headers: { 'x-goog-api-key': 'test-key' }, body: '{"contents":[]}',
  });
  assert.equal(none.status, 500);
  assert.match((await none.json()).error.message, /no scripted reply/);
});

/** Streams one request through the SDK; resolves to the chunks or rejects with its ApiError. */
async function generate(functionDeclarations, contents = 'x') {
  return collect(await ai.models.generateContentStream({
    model: 'gemini-2.5-flash', contents, config: { tools: [{ functionDeclarations }] },
  }));
}

function refusedWith(pattern) {
  return (error) => {
    assert.ok(error instanceof ApiError, `${error}`);
    assert.equal(error.status, 400);
    const body = JSON.parse(error.message);
    assert.equal(body.error.status, 'INVALID_ARGUMENT');
    assert.match(body.error.message, pattern);
    return true;
  };
}

const plain = (name) => ({
  name, description: `tool ${name}`,
  parametersJsonSchema: { type: 'object', properties: { q: { type: 'string' } } },
});

test('more function declarations than the API takes are refused with its words', async () => {
  const many = Array.from({ length: LIMITS.maxFunctionDeclarations + 1 }, (_, i) => plain(`f${i}`));
  await assert.rejects(() => generate(many),
    refusedWith(/^The GenerateContentRequest proto is invalid:\n {2}\* tools\[0\]\.function_declarations: \[FIELD_INVALID\] At most 512 function declarations can be specified\.$/));
  assert.equal(fake.requests().length, 1, 'the SDK sent it once');

  fake.script([{ chunks: textChunks('fine') }]);
  const chunks = await generate(many.slice(0, LIMITS.maxFunctionDeclarations));
  assert.equal(chunks.map((c) => c.text ?? '').join(''), 'fine');
});

test('a schema nested deeper than the API takes is refused, naming the function', async () => {
  const nest = (levels) => (levels === 1 ? { type: 'string' }
    : { type: 'object', properties: { inner: nest(levels - 1) } });
  const deep = { name: 'deep_one', description: 'd', parametersJsonSchema: nest(LIMITS.maxSchemaDepth + 1) };
  assert.equal(schemaDepth(deep.parametersJsonSchema), 6);
  await assert.rejects(() => generate([plain('ok'), deep]),
    refusedWith(/^FunctionDeclaration 'deep_one' in the request exceeds the maximum allowed nesting depth\.$/));

  fake.script([{ chunks: textChunks('fine') }]);
  const shallow = { ...deep, parametersJsonSchema: nest(LIMITS.maxSchemaDepth) };
  assert.equal((await generate([shallow])).map((c) => c.text ?? '').join(''), 'fine');
});

test('array bounds adding up past the limit are refused as too many states', async () => {
  const properties = Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`a${i}`,
    { type: 'array', maxItems: 120, items: { type: 'string' } }]));
  const declaration = { name: 'bounded', description: 'b', parametersJsonSchema: { type: 'object', properties } };
  await assert.rejects(() => generate([declaration]), refusedWith(/too many states for serving/));
});

test('every recorded tool sent as it is fails like the API; the budgeted request GemiPanel sends passes', async () => {
  const raw = toolCorpus.servers.flatMap((s) => s.tools.map((t, i) => ({
    name: `${s.server.replace(/[^a-z0-9]/g, '_')}_${i}`,
    description: t.description ?? '',
    parametersJsonSchema: t.inputSchema,
  })));
  assert.ok(raw.length >= 300 && raw.length <= LIMITS.maxFunctionDeclarations);
  await assert.rejects(() => generate(raw), refusedWith(/exceeds the maximum allowed nesting depth/));

  const declarations = budgetedRequest.tools[0].functionDeclarations;
  assert.ok(declarations.some((d) => d.name === 'search_tools'));
  for (const d of declarations) assert.ok(schemaDepth(d.parametersJsonSchema) <= LIMITS.maxSchemaDepth, d.name);
  fake.script([{ chunks: [functionCallChunk([{ id: 'c1', name: 'search_tools', args: { query: 'merge request thread' } }])] }]);
  const [chunk] = await generate(declarations, budgetedRequest.contents);
  assert.deepEqual(chunk.functionCalls.map((c) => c.name), ['search_tools']);
  const sent = fake.requests().at(-1).body;
  assert.deepEqual(sent.tools, budgetedRequest.tools, 'the SDK passes the declarations through unchanged');
  assert.deepEqual(sent.contents, budgetedRequest.contents);
});
