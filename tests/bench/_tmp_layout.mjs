import { launch, stopServiceWorkers } from '../e2e/harness.mjs';
import { SETTINGS, readyAt, watchReady } from './panel_ready.mjs';
const browser = await launch();
try {
  await watchReady(browser.context);
  const page = await browser.context.newPage();
  await page.goto(browser.url('sidepanel.html'));
  await page.evaluate((settings) => chrome.storage.local.set({ settings }), SETTINGS);
  for (let n = 0; n < 3; n++) {
    await page.goto('data:text/html,between');
    await stopServiceWorkers(page);
    await new Promise((r) => setTimeout(r, 100));
    const cdp = await browser.context.newCDPSession(page);
    const events = [];
    cdp.on('Tracing.dataCollected', ({ value }) => events.push(...value));
    await cdp.send('Tracing.start', { traceConfig: { includedCategories: ['devtools.timeline', 'disabled-by-default-devtools.timeline.stack', 'blink', 'v8'] } });
    await page.goto(browser.url('sidepanel.html'), { waitUntil: 'commit' });
    await readyAt(page);
    const complete = new Promise((r) => cdp.once('Tracing.tracingComplete', r));
    await cdp.send('Tracing.end'); await complete; await cdp.detach();
    if (n === 0) continue;
    const t0 = Math.min(...events.filter((e) => e.ts > 0).map((e) => e.ts));
    for (const e of events) {
      if (!['Layout', 'UpdateLayoutTree', 'ScheduleStyleRecalculation', 'InvalidateLayout'].includes(e.name)) continue;
      const st = e.args?.beginData?.stackTrace ?? e.args?.data?.stackTrace;
      if (!st && e.name !== 'Layout' && e.name !== 'UpdateLayoutTree') continue;
      console.log(((e.ts - t0) / 1000).toFixed(1), e.name, ((e.dur ?? 0) / 1000).toFixed(1), JSON.stringify((st ?? []).slice(0, 4).map((f) => `${f.functionName}@${f.url.split('/').pop()}:${f.lineNumber}`)));
    }
    console.log('---');
  }
} finally { await browser.close(); }
