// `cargo xtask run`: opens Chromium with the extension and its side panel page, with the demo
// MCP server (GEMIPANEL_DEMO_URL, started by xtask) configured. With a display the browser
// stays open until you close it; without one, it runs the demo's app from the tool browser,
// saves screenshots and says where.
import { launch, screenshot, outDir } from './harness.mjs';

const headless = process.env.GEMIPANEL_HEADLESS === '1';
const demoUrl = process.env.GEMIPANEL_DEMO_URL;
// The bridge for local servers, installed into this profile as `gemipanel-bridge install` would.
const browser = await launch({ headless, keepProfile: !headless, bridge: true });
const page = await browser.context.newPage();
await page.goto(browser.url('sidepanel.html'));
await page.locator('[data-testid="worker-status"][data-state="ok"]').waitFor({ timeout: 15_000 })
  .catch(() => console.error('the side panel did not show a worker status within 15 s'));

if (demoUrl) {
  const request = (req) => page.evaluate((m) => chrome.runtime.sendMessage(m), { id: 1, request: req });
  const servers = (await request({ type: 'get_settings' }))?.response?.settings?.servers ?? [];
  if (!servers.some((s) => s.url === demoUrl)) {
    const added = await request({ type: 'edit_settings', edit: { type: 'add_server', id: 'srv_demo', server: { name: 'Demo', url: demoUrl } } });
    if (added?.response?.type !== 'settings') console.error(`adding the demo server failed: ${JSON.stringify(added)}`);
  }
  await page.reload();
  console.log(`demo MCP server: ${demoUrl} (as "Demo"; the ⚒ button lists its tools and runs them)`);
}

if (headless) {
  console.log(`headless machine: side panel screenshot saved to ${await screenshot(page, 'sidepanel')}`);
  if (demoUrl) {
    await page.getByTestId('tools').click();
    await page.getByTestId('tool-browser').locator('[data-server="Demo"] summary').click();
    await page.locator('[data-tool="pick_colour"]').click();
    await page.getByTestId('tool-run').click();
    await page.getByTestId('app-frame').and(page.locator('[data-state="ready"]')).waitFor({ timeout: 30_000 })
      .catch(() => console.error('the demo app did not become ready within 30 s'));
    await page.waitForTimeout(500);
    console.log(`the demo's app, run from the tool browser: ${await screenshot(page, 'sidepanel-demo-app')}`);
  }
  console.log(`(outputs in ${outDir})`);
  await browser.close();
} else {
  console.log('Chromium is open with GemiPanel loaded; close the window to finish.');
  await new Promise((resolve) => browser.context.on('close', resolve));
}
