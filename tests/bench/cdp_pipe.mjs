// Chromium driven through the DevTools protocol over a pipe (--remote-debugging-pipe: commands on
// fd 3, replies and events on fd 4, each a JSON text ended by NUL). No WebSocket and no library:
// flattened sessions (`sessionId` on each message) reach every target, service workers included,
// which Playwright's CDP sessions cannot address.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CHROMIUM } from '../e2e/harness.mjs';

export async function launchOverPipe({ extensions, args = [], beforeStart = () => {} }) {
  const profile = mkdtempSync(join(tmpdir(), 'gemipanel-cdp-'));
  beforeStart(profile);
  const child = spawn(CHROMIUM, [
    '--headless',
    '--no-sandbox', // as Playwright starts it; this machine runs as root
    `--user-data-dir=${profile}`,
    '--remote-debugging-pipe',
    `--disable-extensions-except=${extensions.join(',')}`,
    `--load-extension=${extensions.join(',')}`,
    '--disable-gpu',
    '--no-first-run',
    '--no-default-browser-check',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--disable-quic',
    ...args,
    'about:blank',
  ], { stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => { stderr = (stderr + d).slice(-4000); });
  const toChrome = child.stdio[3];
  const fromChrome = child.stdio[4];
  // A pipe closed by Chromium's exit is reported through `exited` below.
  toChrome.on('error', () => {});
  fromChrome.on('error', () => {});

  let nextId = 1;
  const pending = new Map();
  const listeners = new Set();
  let buffer = '';
  fromChrome.setEncoding('utf8');
  fromChrome.on('data', (chunk) => {
    buffer += chunk;
    let end;
    while ((end = buffer.indexOf('\0')) >= 0) {
      const message = JSON.parse(buffer.slice(0, end));
      buffer = buffer.slice(end + 1);
      if (message.id !== undefined) {
        const waiter = pending.get(message.id);
        pending.delete(message.id);
        if (message.error) waiter?.reject(new Error(`${waiter.method}: ${message.error.message}`));
        else waiter?.resolve(message.result);
      } else {
        for (const listener of [...listeners]) listener(message);
      }
    }
  });
  const exited = new Promise((resolve) => child.on('exit', resolve));
  exited.then(() => {
    for (const waiter of pending.values()) waiter.reject(new Error(`Chromium exited: ${stderr}`));
  });

  const cdp = {
    /** A command to the browser, or to the target of `sessionId`. */
    send(method, params = {}, sessionId = undefined) {
      const id = nextId++;
      toChrome.write(`${JSON.stringify({ id, method, params, sessionId })}\0`);
      return new Promise((resolve, reject) => pending.set(id, { resolve, reject, method }));
    },
    /** Calls `listener(message)` for every event; returns a function that stops it. */
    on(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    /** The first event `method` (of `sessionId`, if given) for which `predicate` holds. */
    waitFor(method, predicate = () => true, { sessionId, timeoutMs = 15_000 } = {}) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => { off(); reject(new Error(`no ${method} in ${timeoutMs} ms`)); }, timeoutMs);
        const off = cdp.on((message) => {
          if (message.method !== method) return;
          if (sessionId !== undefined && message.sessionId !== sessionId) return;
          if (!predicate(message.params)) return;
          clearTimeout(timer);
          off();
          resolve(message.params);
        });
      });
    },
    /** Evaluates `expression` in a session (awaiting a promise) and returns its value. */
    async evaluate(sessionId, expression) {
      const { result, exceptionDetails } = await cdp.send('Runtime.evaluate',
        { expression, awaitPromise: true, returnByValue: true }, sessionId);
      if (exceptionDetails) {
        throw new Error(exceptionDetails.exception?.description ?? exceptionDetails.text);
      }
      return result.value;
    },
    async close() {
      cdp.send('Browser.close').catch(() => {});
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
      rmSync(profile, { recursive: true, force: true });
    },
  };
  return cdp;
}
