// `cargo xtask run`: opens Chromium with the extension and its side panel page. With a display
// the browser stays open until you close it; without one, it saves a screenshot and says where.
import { launch, screenshot, outDir } from './harness.mjs';

const headless = process.env.GEMIPANEL_HEADLESS === '1';
const browser = await launch({ headless, keepProfile: !headless });
const page = await browser.context.newPage();
await page.goto(browser.url('sidepanel.html'));
await page.locator('[data-testid="worker-status"][data-state="ok"]').waitFor({ timeout: 15_000 })
  .catch(() => console.error('the side panel did not show a worker status within 15 s'));
if (headless) {
  const path = await screenshot(page, 'sidepanel');
  console.log(`headless machine: side panel screenshot saved to ${path}`);
  console.log(`(outputs in ${outDir})`);
  await browser.close();
} else {
  console.log('Chromium is open with GemiPanel loaded; close the window to finish.');
  await new Promise((resolve) => browser.context.on('close', resolve));
}
