// Bundles the demo's app into one HTML file: `node demo/app/build.mjs <out.html>`.
// esbuild and the ext-apps SDK come from tests/node_modules (`cargo xtask setup`).
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const testsDir = resolve(here, '../../tests');
const { build } = createRequire(resolve(testsDir, 'package.json'))('esbuild');
const out = process.argv[2];
if (!out) {
  console.error('usage: node demo/app/build.mjs <out.html>');
  process.exit(2);
}
const bundle = await build({
  entryPoints: [resolve(here, 'colour.js')],
  nodePaths: [resolve(testsDir, 'node_modules')],
  bundle: true, format: 'esm', write: false, minify: true, target: 'es2022', logLevel: 'warning',
});
const script = bundle.outputFiles[0].text.replaceAll('</script', '<\\/script');
const html = readFileSync(resolve(here, 'colour.html'), 'utf8').replace('/*APP*/', () => script);
mkdirSync(dirname(resolve(out)), { recursive: true });
writeFileSync(out, html);
console.log(`demo app: ${out} (${(html.length / 1024).toFixed(0)} KB)`);
