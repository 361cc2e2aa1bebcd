// The official TypeScript SDK's stdio client calling server-everything's `echo`: the baseline
// for the bridge's echo latency (bridge/benches/echo_latency.rs drives this script).
//
// It starts the server, connects and warms up, prints `ready`, then for each line `N` on stdin
// makes N sequential calls and prints their latencies in microseconds on one line, so the
// Rust side can alternate blocks of calls between the two paths.
import { createInterface } from 'node:readline';
import { resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const WARMUP = 50;
const server = resolve(import.meta.dirname, '../node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const client = new Client({ name: 'gemipanel-bench', version: '0' });
await client.connect(new StdioClientTransport({ command: process.execPath, args: [server, 'stdio'], stderr: 'ignore' }));
const echo = () => client.callTool({ name: 'echo', arguments: { message: 'hello' } });
for (let i = 0; i < WARMUP; i++) await echo();
console.log('ready');
for await (const line of createInterface({ input: process.stdin })) {
  const samples = [];
  for (let i = 0; i < Number(line); i++) {
    const start = process.hrtime.bigint();
    const result = await echo();
    samples.push(Number(process.hrtime.bigint() - start) / 1000);
    if (result.content?.[0]?.text !== 'Echo: hello') throw new Error(`unexpected reply ${JSON.stringify(result)}`);
  }
  console.log(samples.join(' '));
}
await client.close();
