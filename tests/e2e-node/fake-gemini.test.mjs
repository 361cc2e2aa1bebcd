// The fake Gemini server against the official @google/genai SDK: what the fake sends, the SDK
// parses; what the SDK sends has the shape GemiPanel's Rust types produce
// (core/tests/data/gemini/sdk_request_function_response.json, written by the Rust test
// `gemini_wire::request_matches_the_shared_sdk_fixture`); and what the real API refuses, the
// fake refuses with the API's words (tests/fixtures/fake-gemini/rules.mjs cites each rule),
// sent through the SDK wherever the SDK can send it.
//
// Run: node --test tests/e2e-node/

import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { GoogleGenAI, ApiError } from '@google/genai';
import {
  startFakeGemini, textChunks, functionCallChunk, rateLimited, defaultModels, LIMITS, schemaDepth,
  MAX_REQUEST_BYTES,
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
    model: 'gemini-3.8-flash',
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
  assert.equal(request.path, '/v1beta/models/gemini-3.8-flash:streamGenerateContent?alt=sse');
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
    model: 'gemini-3.8-flash', contents: [user], config,
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
    model: 'gemini-3.8-flash', contents: [user, modelTurn, response], config,
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
    async () => collect(await ai.models.generateContentStream({ model: 'gemini-3.8-flash', contents: 'x' })),
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
    async () => collect(await stranger.models.generateContentStream({ model: 'gemini-3.8-flash', contents: 'x' })),
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
  // Today's models: no retired 2.x or routed id is listed.
  assert.ok(names.includes('models/gemini-3.8-flash') && names.includes('models/gemini-4-argon'));
  assert.ok(!names.some((n) => /gemini-2\.|gemini-3\.7-flash$|gemini-3\.5-flash$/.test(n)), names.join());
  const paths = fake.requests().map((r) => r.path);
  assert.equal(paths.length, Math.ceil(names.length / 2));
  assert.match(paths[0], /^\/v1beta\/models\?pageSize=2$/);
  assert.match(paths[1], /pageToken=page-2/);
});

test('control endpoints script and report over HTTP; a cut stream stops mid-way', async () => {
  const script = await fetch(`${fake.url}/__script`, {
    method: 'POST',
    body: JSON.stringify({ replies: [{ chunks: textChunks('partial text here', { size: 4 }).slice(0, 2), cut: true }] }),
  });
  assert.deepEqual(await script.json(), { queued: 1 });
  const res = await fetch(`${fake.url}/v1beta/models/gemini-3.8-flash:streamGenerateContent?alt=sse`, {
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
  const none = await fetch(`${fake.url}/v1beta/models/gemini-3.8-flash:streamGenerateContent?alt=sse`, {
    method: 'POST', headers: { 'x-goog-api-key': 'test-key' }, body: '{"contents":[]}',
  });
  assert.equal(none.status, 500);
  assert.match((await none.json()).error.message, /no scripted reply/);
});

/** Streams one request through the SDK; resolves to the chunks or rejects with its ApiError. */
async function generate(functionDeclarations, contents = 'x') {
  return collect(await ai.models.generateContentStream({
    model: 'gemini-3.8-flash', contents, config: { tools: [{ functionDeclarations }] },
  }));
}

function refusedWith(pattern, status = 400, rpc = 'INVALID_ARGUMENT') {
  return (error) => {
    assert.ok(error instanceof ApiError, `${error}`);
    assert.equal(error.status, status);
    const body = JSON.parse(error.message);
    assert.equal(body.error.code, status);
    assert.equal(body.error.status, rpc);
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

// ---- What today's API refuses (tests/fixtures/fake-gemini/rules.mjs cites each rule) ----

/** Streams through the SDK with `config`; resolves to the chunks or rejects with its ApiError. */
async function stream(model, contents, config = {}) {
  return collect(await ai.models.generateContentStream({ model, contents, config }));
}

const NOT_FOUND = 'NOT_FOUND';

test('retired, unknown and non-chat model ids answer 404 as the API words it; a routed id is served by its target', async () => {
  // The old default: what a new user got with GemiPanel's hard-coded gemini-2.5-flash.
  await assert.rejects(() => stream('gemini-2.5-flash', 'Hi'), refusedWith(
    /^This model models\/gemini-2\.5-flash is no longer available to new users\. Please update your code to use a newer model for the latest features and improvements\.$/,
    404, NOT_FOUND));
  await assert.rejects(() => stream('gemini-2.0-flash', 'Hi'), refusedWith(
    /^This model models\/gemini-2\.0-flash is no longer available\. Please update/, 404, NOT_FOUND));
  await assert.rejects(() => stream('gemini-pro', 'Hi'), refusedWith(
    /^models\/gemini-pro is not found for API version v1beta, or is not supported for generateContent\. Call ListModels to see the list of available models and their supported methods\.$/,
    404, NOT_FOUND));
  await assert.rejects(() => stream('gemini-embedding-001', 'Hi'), refusedWith(/is not supported for generateContent/, 404, NOT_FOUND));
  assert.equal(fake.pending(), 0);

  // gemini-3.7-flash is served by 3.8 Flash, under its rules: no `minimal`.
  fake.script([{ chunks: textChunks('Routed.') }]);
  assert.equal((await stream('gemini-3.7-flash', 'Hi')).map((c) => c.text ?? '').join(''), 'Routed.');
  await assert.rejects(() => stream('gemini-3.7-flash', 'Hi', { thinkingConfig: { thinkingLevel: 'MINIMAL' } }),
    refusedWith(/^Thinking level MINIMAL is not supported for this model\. Please retry with other thinking level\.$/));
});

test('thinking settings the model refuses: a level it lacks, a budget where levels rule, both at once', async () => {
  for (const model of ['gemini-3.8-flash', 'gemini-4-argon']) {
    await assert.rejects(() => stream(model, 'Hi', { thinkingConfig: { thinkingLevel: 'minimal' } }),
      refusedWith(/^Thinking level MINIMAL is not supported for this model/), model);
  }
  await assert.rejects(() => stream('gemini-4-argon', 'Hi', { thinkingConfig: { thinkingBudget: 1024 } }),
    refusedWith(/^Thinking budget is not supported for this model\. Use thinking level instead\.$/));
  await assert.rejects(() => stream('gemini-3.8-flash', 'Hi', { thinkingConfig: { thinkingBudget: 1024, thinkingLevel: 'LOW' } }),
    refusedWith(/thinking_level and thinking_budget/));
  // What each model documents passes.
  fake.script([{ chunks: textChunks('a') }, { chunks: textChunks('b') }, { chunks: textChunks('c') }]);
  await stream('gemini-3.5-flash-lite', 'Hi', { thinkingConfig: { thinkingLevel: 'MINIMAL', includeThoughts: true } });
  await stream('gemini-4-argon', 'Hi', { thinkingConfig: { thinkingLevel: 'high', includeThoughts: true } });
  await stream('gemini-3.8-flash', 'Hi', { thinkingConfig: { includeThoughts: true } });
  assert.equal(fake.pending(), 0);
});

test('a deprecated field the model rejects is refused; sampling parameters it ignores are taken', async () => {
  await assert.rejects(() => stream('gemini-3.8-flash', 'Hi', { presencePenalty: 0.5 }),
    refusedWith(/presencePenalty is not supported for this model/));
  await assert.rejects(() => stream('gemini-3.5-flash-lite', 'Hi', { frequencyPenalty: 0.5 }),
    refusedWith(/frequencyPenalty is not supported for this model/));
  // Deprecated and ignored from 3.6 Flash on (changelog 2026-07-21), still accepted.
  fake.script([{ chunks: textChunks('ok') }, { chunks: textChunks('ok') }]);
  await stream('gemini-3.8-flash', 'Hi', { temperature: 0.2, topP: 0.9 });
  await stream('gemini-3.1-flash-lite', 'Hi', { presencePenalty: 0.5 });
});

test('a request ending with a model turn is refused', async () => {
  const contents = [{ role: 'user', parts: [{ text: 'Write a poem' }] }, { role: 'model', parts: [{ text: 'Roses' }] }];
  await assert.rejects(() => stream('gemini-3.8-flash', contents),
    refusedWith(/^Requests ending with a model turn are not supported\.$/));
});

test('a function-call turn sent back without its signature, or with another model\'s, is refused', async () => {
  const declaration = { name: 'mcp_s_get', description: 'd', parametersJsonSchema: { type: 'object' } };
  const config = { tools: [{ functionDeclarations: [declaration] }] };
  fake.script([{ chunks: [functionCallChunk([{ id: 'c1', name: 'mcp_s_get' }], { signature: 'U2lnRnJvbTM4' })] }]);
  const [chunk] = await stream('gemini-3.8-flash', 'Go', config);
  const call = chunk.candidates[0].content;
  const user = { role: 'user', parts: [{ text: 'Go' }] };
  const response = { role: 'user', parts: [{ functionResponse: { id: 'c1', name: 'mcp_s_get', response: { output: 1 } } }] };
  const unsigned = { role: 'model', parts: [{ functionCall: call.parts[0].functionCall }] };
  await assert.rejects(() => stream('gemini-3.8-flash', [user, unsigned, response], config), refusedWith(
    /^Function call is missing a thought_signature in functionCall parts\. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance\. Additional data, function call `default_api:mcp_s_get` , position 1\. Please refer to https:\/\/ai\.google\.dev\/gemini-api\/docs\/thought-signatures for more details\.$/));
  // 3.8 Flash's signature sent to Gemini 4 Argon.
  await assert.rejects(() => stream('gemini-4-argon', [user, call, response], config),
    refusedWith(/^Corrupted thought signature\.$/));
  // The docs' dummy for history the model did not produce passes, and so does the real one.
  const dummy = { role: 'model', parts: [{ ...unsigned.parts[0], thoughtSignature: 'skip_thought_signature_validator' }] };
  fake.script([{ chunks: textChunks('Argon') }, { chunks: textChunks('Flash') }]);
  await stream('gemini-4-argon', [user, dummy, response], config);
  await stream('gemini-3.8-flash', [user, call, response], config);
  // A later turn is not validated: an unsigned call there passes.
  fake.script([{ chunks: textChunks('later') }]);
  await stream('gemini-3.8-flash', [user, unsigned, response, { role: 'model', parts: [{ text: 'done' }] },
    { role: 'user', parts: [{ text: 'next' }] }], config);
  // Every call needs its response.
  await assert.rejects(() => stream('gemini-3.8-flash', [user, call, { role: 'user', parts: [{ text: 'no response' }] }], config),
    refusedWith(/number of function response parts is equal to the number of function call parts/));
});

test('media inside a function response reaches Gemini 3 as the SDK sends it', async () => {
  const declaration = { name: 'mcp_s_shot', description: 'd', parametersJsonSchema: { type: 'object' } };
  const config = { tools: [{ functionDeclarations: [declaration] }] };
  fake.script([{ chunks: [functionCallChunk([{ id: 'c1', name: 'mcp_s_shot' }])] }, { chunks: textChunks('A red dot.') }]);
  const [chunk] = await stream('gemini-3.8-flash', 'Shoot', config);
  const response = { role: 'user', parts: [{ functionResponse: {
    id: 'c1', name: 'mcp_s_shot',
    response: { output: 'Here it is.', image_1: { $ref: 'image_1.png' } },
    parts: [{ inlineData: { mimeType: 'image/png', data: 'iVBORw0KGgo=', displayName: 'image_1.png' } }],
  } }] };
  const text = await stream('gemini-3.8-flash', [{ role: 'user', parts: [{ text: 'Shoot' }] }, chunk.candidates[0].content, response], config);
  assert.equal(text.map((c) => c.text ?? '').join(''), 'A red dot.');
  assert.deepEqual(fake.requests().at(-1).body.contents[2], response, 'the SDK passes it through unchanged');
});

test('inline data over the request limit is refused with the API front end\'s words', async () => {
  // 100 MB of base64 in one part: the request body passes the limit.
  const data = 'A'.repeat(MAX_REQUEST_BYTES);
  await assert.rejects(() => stream('gemini-3.8-flash', [{ role: 'user', parts: [
    { text: 'What is in it?' }, { inlineData: { mimeType: 'image/png', data } }] }]),
  refusedWith(/^Request payload size exceeds the limit: 104857600 bytes\.$/));
  // A PDF over its own 50 MB, inside a request under the limit.
  const pdf = 'A'.repeat(Math.ceil((50 * 1024 * 1024 * 4) / 3) + 8);
  await assert.rejects(() => stream('gemini-3.8-flash', [{ role: 'user', parts: [
    { text: 'Summarise' }, { inlineData: { mimeType: 'application/pdf', data: pdf } }] }]),
  refusedWith(/PDF document is larger than 52428800 bytes/));
  assert.equal(fake.pending(), 0);
});

test('a file reference that expired, or never existed, is refused with 403; a live one is taken', async () => {
  const live = fake.addFile({ name: 'files/live-1', mimeType: 'application/pdf' });
  const expired = fake.addFile({ name: 'files/old-1', mimeType: 'application/pdf', expirationTime: new Date(Date.now() - 1000).toISOString() });
  const asking = (file) => [{ role: 'user', parts: [{ text: 'Summarise' }, { fileData: { fileUri: file.uri, mimeType: 'application/pdf' } }] }];
  await assert.rejects(() => stream('gemini-3.8-flash', asking(expired)),
    refusedWith(/^You do not have permission to access the File old-1 or it may not exist\.$/, 403, 'PERMISSION_DENIED'));
  await assert.rejects(() => stream('gemini-3.8-flash', asking({ uri: `${fake.url}/v1beta/files/never-was` })),
    refusedWith(/the File never-was or it may not exist/, 403, 'PERMISSION_DENIED'));
  await assert.rejects(() => ai.files.get({ name: 'files/old-1' }), (error) => error.status === 403);
  assert.equal((await ai.files.get({ name: 'files/live-1' })).uri, live.uri);
  fake.script([{ chunks: textChunks('A summary.') }]);
  assert.equal((await stream('gemini-3.8-flash', asking(live))).map((c) => c.text ?? '').join(''), 'A summary.');
});

test('fields the API does not know are refused as it refuses them (sent raw: the SDK drops them)', async () => {
  const post = (body) => fetch(`${fake.url}/v1beta/models/gemini-3.8-flash:streamGenerateContent?alt=sse`, {
    method: 'POST', headers: { 'x-goog-api-key': 'test-key', 'content-type': 'application/json' }, body: JSON.stringify(body),
  });
  const contents = [{ role: 'user', parts: [{ text: 'x' }] }];
  const top = await post({ contents, temperature: 0.2 });
  assert.equal(top.status, 400);
  assert.equal((await top.json()).error.message, 'Invalid JSON payload received. Unknown name "temperature": Cannot find field.');
  const inContent = await post({ contents: [{ ...contents[0], author: 'gemini-3.8-flash' }] });
  assert.equal((await inContent.json()).error.message,
    'Invalid JSON payload received. Unknown name "author" at \'contents[0]\': Cannot find field.');
  const inThinking = await post({ contents, generationConfig: { thinkingConfig: { level: 'low' } } });
  assert.match((await inThinking.json()).error.message, /Unknown name "level" at 'generation_config\.thinking_config'/);
});

test('Google Search with functions: refused before Gemini 3 and without includeServerSideToolInvocations, taken with it', async () => {
  const declaration = { name: 'mcp_s_get', description: 'd', parametersJsonSchema: { type: 'object' } };
  const tools = [{ googleSearch: {} }, { functionDeclarations: [declaration] }];
  await assert.rejects(() => stream('gemini-3.8-flash', 'Hi', { tools }), refusedWith(
    /^Please enable tool_config\.include_server_side_tool_invocations to use Built-in tools with Function calling\.$/));
  await assert.rejects(() => stream('gemini-3.1-flash-lite', 'Hi',
    { tools: [{ googleSearch: {}, functionDeclarations: [declaration] }], toolConfig: { includeServerSideToolInvocations: true } }),
  refusedWith(/one_of 'tool_type' has more than one initialized field: function_declarations, google_search/));
  await assert.rejects(() => stream('gemma-3-27b-it', 'Hi', { tools, toolConfig: { includeServerSideToolInvocations: true } }),
    refusedWith(/^Tool use with function calling is unsupported$/));
  fake.script([{ chunks: textChunks('Both.') }, { chunks: textChunks('Search only.') }]);
  const both = await stream('gemini-3.8-flash', 'Hi', { tools, toolConfig: { includeServerSideToolInvocations: true } });
  assert.equal(both.map((c) => c.text ?? '').join(''), 'Both.');
  assert.deepEqual(fake.requests().at(-1).body.toolConfig, { includeServerSideToolInvocations: true },
    'the SDK sends the field as GemiPanel does');
  await stream('gemini-3.8-flash', 'Hi', { tools: [{ googleSearch: {} }] });
  assert.equal(fake.pending(), 0);
});

test('the official SDK uploads through the resumable protocol; the file it gets back may be named', async () => {
  // 9 MiB + 5: two chunks for a client that sends the 8 MiB granularity, one for the SDK.
  const bytes = Buffer.alloc(9 * 1024 * 1024 + 5, 7);
  const file = await ai.files.upload({
    file: new Blob([bytes], { type: 'application/pdf' }),
    config: { mimeType: 'application/pdf', displayName: 'report.pdf' },
  });
  assert.match(file.name, /^files\/[a-z0-9]+$/);
  assert.equal(file.uri, `${fake.url}/v1beta/${file.name}`);
  assert.equal(file.mimeType, 'application/pdf');
  assert.equal(file.sizeBytes, String(bytes.length));
  assert.equal(file.state, 'ACTIVE');
  assert.ok(Date.parse(file.expirationTime) > Date.now() + 47 * 3600_000, file.expirationTime);
  const [session] = fake.uploads();
  assert.equal(session.bytes, bytes.length);
  assert.equal(session.displayName, 'report.pdf');
  assert.ok(session.done);
  fake.script([{ chunks: textChunks('A summary.') }]);
  const chunks = await collect(await ai.models.generateContentStream({
    model: 'gemini-3.8-flash',
    contents: [{ role: 'user', parts: [{ text: 'Summarise' }, { fileData: { fileUri: file.uri, mimeType: file.mimeType } }] }],
  }));
  assert.equal(chunks.map((c) => c.text ?? '').join(''), 'A summary.');
});

test('a resumable upload by hand: the session is exposed to pages, offsets are checked, the last chunk answers the file', async () => {
  const start = await fetch(`${fake.url}/upload/v1beta/files`, {
    method: 'POST',
    headers: {
      'x-goog-api-key': 'test-key',
      'X-Goog-Upload-Protocol': 'resumable',
      'X-Goog-Upload-Command': 'start',
      'X-Goog-Upload-Header-Content-Length': String(8 * 1024 * 1024 + 3),
      'X-Goog-Upload-Header-Content-Type': 'audio/mp3',
      'Content-Type': 'application/json',
    },
    body: JSON.stringify({ file: { display_name: 'a.mp3' } }),
  });
  assert.equal(start.status, 200);
  assert.match(start.headers.get('access-control-expose-headers'), /x-goog-upload-url/);
  assert.equal(start.headers.get('x-goog-upload-chunk-granularity'), String(8 * 1024 * 1024));
  const session = start.headers.get('x-goog-upload-url');
  assert.ok(session.startsWith(`${fake.url}/upload/v1beta/files?upload_id=`), session);
  const chunk = (command, offset, body) => fetch(session, {
    method: 'POST',
    headers: { 'X-Goog-Upload-Command': command, 'X-Goog-Upload-Offset': String(offset) },
    body,
  });
  // A chunk that is not a multiple of the granularity, unless it is the last, is refused.
  assert.equal((await chunk('upload', 0, Buffer.alloc(10))).status, 400);
  const first = await chunk('upload', 0, Buffer.alloc(8 * 1024 * 1024));
  assert.equal(first.headers.get('x-goog-upload-status'), 'active');
  // A wrong offset is answered with the size received.
  const wrong = await chunk('upload, finalize', 5, Buffer.alloc(3));
  assert.equal(wrong.status, 400);
  assert.equal(wrong.headers.get('x-goog-upload-size-received'), String(8 * 1024 * 1024));
  const last = await chunk('upload, finalize', 8 * 1024 * 1024, Buffer.alloc(3));
  assert.equal(last.headers.get('x-goog-upload-status'), 'final');
  const { file } = await last.json();
  assert.equal(file.mimeType, 'audio/mp3');
  assert.equal(file.displayName, 'a.mp3');
  // Without the key the start is refused as the API refuses it.
  const nokey = await fetch(`${fake.url}/upload/v1beta/files`, { method: 'POST', headers: { 'X-Goog-Upload-Protocol': 'resumable', 'X-Goog-Upload-Command': 'start' } });
  assert.equal(nokey.status, 403);
});
