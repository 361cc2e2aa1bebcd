// What V8 compiles lazily on the way to a moment of an open or a wake (issue 24). V8 compiles a
// wasm function the first time it is called, on the calling thread, and here Chrome hands no
// compiled code of a module from one renderer to the next (tests/bench/wasm_code_cache.mjs): every
// open of the panel and every wake of the worker compiles again all the code it runs. Traced
// apart from the timed rounds, since tracing slows both.

const CATEGORIES = ['v8.wasm', 'blink.user_timing'];

/** The browser's trace events while `run` runs, through a CDP session of `page`; `more`: other
 * trace categories. */
export async function traced(context, page, run, more = []) {
  const cdp = await context.newCDPSession(page);
  const events = [];
  cdp.on('Tracing.dataCollected', ({ value }) => events.push(...value));
  await cdp.send('Tracing.start', { traceConfig: { includedCategories: [...CATEGORIES, ...more] } });
  try {
    await run();
  } finally {
    const complete = new Promise((resolve) => cdp.once('Tracing.tracingComplete', resolve));
    await cdp.send('Tracing.end');
    await complete;
    await cdp.detach();
  }
  return events;
}

/** The lazy compilation on the thread that marked `mark` (performance.mark), before the mark:
 * `{ ms, functions }`; null when nothing marked it. */
export function lazyCompileBefore(events, mark) {
  const at = events.find((e) => e.name === mark && e.cat === 'blink.user_timing');
  if (!at) return null;
  const compiles = events.filter((e) => e.name === 'wasm.CompileLazy'
    && e.pid === at.pid && e.tid === at.tid && e.ts < at.ts);
  return { ms: compiles.reduce((sum, e) => sum + e.dur / 1000, 0), functions: compiles.length };
}
