// Records `tools/list` of the published MCP servers in servers.json into corpus.json.
// Not run by the tests: the corpus is a fixture. To record again, in a scratch folder outside
// the repository:
//   npm install @modelcontextprotocol/sdk <every npm package of servers.json>
//   python3 -m venv venv && venv/bin/pip install <every pypi package of servers.json>
//   unshare -n sh -c 'ip link set lo up; VENV=$PWD/venv exec node <repo>/core/tests/data/tools/record.mjs'
// (`unshare -n`: the servers run with no network; dummy tokens in servers.json only let them
// start.) Each server is started over stdio, listed (all pages) and stopped.

import { readFileSync, writeFileSync, mkdtempSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const here = path.dirname(new URL(import.meta.url).pathname);
const scratch = process.cwd();
// The SDK comes from the scratch folder, not from the repository.
const fromScratch = createRequire(path.join(scratch, 'package.json'));
const { Client } = await import(fromScratch.resolve('@modelcontextprotocol/sdk/client/index.js'));
const { StdioClientTransport } = await import(fromScratch.resolve('@modelcontextprotocol/sdk/client/stdio.js'));
const dir = mkdtempSync(path.join(scratch, 'ws-'));
const servers = JSON.parse(readFileSync(path.join(here, 'servers.json'), 'utf8'));
const fill = (text) => text.replaceAll('$DIR', dir).replaceAll('$VENV', process.env.VENV ?? '');

const recorded = [];
for (const s of servers) {
  let command = s.command ? fill(s.command) : process.execPath;
  let args = (s.args ?? []).map(fill);
  let version = s.version;
  if (s.registry === 'npm') {
    const root = path.join(scratch, 'node_modules', s.package);
    const manifest = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
    version = manifest.version;
    const bin = typeof manifest.bin === 'string' ? manifest.bin : Object.values(manifest.bin)[0];
    args = [path.join(root, bin), ...args];
  }
  const env = { ...process.env, ...Object.fromEntries(Object.entries(s.env ?? {}).map(([k, v]) => [k, fill(v)])) };
  const transport = new StdioClientTransport({ command, args, env, stderr: 'ignore', cwd: dir });
  const client = new Client({ name: 'gemipanel-corpus-recorder', version: '1' });
  const timeout = new Promise((_, reject) => setTimeout(() => reject(new Error('no answer in 60 s')), 60_000));
  await Promise.race([client.connect(transport), timeout]);
  const tools = [];
  let cursor;
  do {
    const page = await client.listTools(cursor ? { cursor } : {});
    tools.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor);
  await client.close();
  recorded.push({ server: s.name, registry: s.registry, package: s.package, version, tools });
  console.log(`${s.name} ${s.package}@${version}: ${tools.length} tools`);
}

const line = (value) => JSON.stringify(value);
const body = recorded.map((s) => `  {"server":${line(s.server)},"registry":${line(s.registry)},` +
  `"package":${line(s.package)},"version":${line(s.version)},"tools":[\n` +
  s.tools.map((t) => `   ${line(t)}`).join(',\n') + '\n  ]}').join(',\n');
writeFileSync(path.join(here, 'corpus.json'), '{\n "about": "tools/list of published MCP servers, ' +
  'recorded by record.mjs (beside this file) with each package run offline; package and version ' +
  `per server.",\n "servers": [\n${body}\n ]\n}\n`);
process.exit(0);
