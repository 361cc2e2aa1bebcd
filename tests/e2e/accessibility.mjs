// The accessibility scan every screenshot state gets: axe-core run in the extension's own
// pages (sandboxed MCP App frames and outside pages, such as an authorization server's login,
// are not ours to fix). A serious or critical violation fails the test that took the
// screenshot, with the rule, what it says and where.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const axeSource = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

/** Impacts that fail the scan. */
const FAILING = new Set(['serious', 'critical']);

/** The serious and critical violations axe finds in `page`, or none when it is not ours. */
export async function violations(page) {
  if (!page.url().startsWith('chrome-extension://')) return [];
  const found = await page.evaluate(async (source) => {
    if (!globalThis.axe) (0, eval)(source);
    const result = await globalThis.axe.run(document, {
      iframes: false,
      resultTypes: ['violations'],
    });
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.map((n) => ({ target: n.target.join(' '), summary: n.failureSummary })),
    }));
  }, axeSource);
  return found.filter((v) => FAILING.has(v.impact));
}

/** Throws when `page` has serious or critical violations, naming each. */
export async function assertAccessible(page, name) {
  const found = await violations(page);
  if (found.length === 0) return;
  const lines = found.flatMap((v) => [
    `${v.impact} ${v.id}: ${v.help}`,
    ...v.nodes.slice(0, 5).map((n) => `  at ${n.target}: ${n.summary.replace(/\s+/g, ' ')}`),
  ]);
  throw new Error(`accessibility scan of “${name}” found ${found.length} serious or critical violation(s):\n${lines.join('\n')}`);
}
