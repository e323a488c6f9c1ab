#!/usr/bin/env node
// Builds the web console (console/ -> console/dist) when the build is missing or older than its
// sources, so `npm install`, `npm start` and `npm test` need no extra step. Quick when up to date.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const built = path.join(root, 'console/dist/index.html');
const inputs = ['console/src', 'console/public', 'console/index.html', 'console/vite.config.ts', 'console/tsconfig.json', 'src/limits.ts'];

function newest(file) {
  if (!existsSync(file)) return 0;
  const stat = statSync(file);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return readdirSync(file).reduce((max, name) => Math.max(max, newest(path.join(file, name))), stat.mtimeMs);
}

const force = process.argv.includes('--force');
const builtAt = existsSync(built) ? statSync(built).mtimeMs : 0;
const sourcesAt = Math.max(...inputs.map((p) => newest(path.join(root, p))));
if (!force && builtAt > 0 && builtAt >= sourcesAt) process.exit(0);

let vite;
try {
  vite = path.join(path.dirname(createRequire(import.meta.url).resolve('vite/package.json')), 'bin/vite.js');
} catch {
  console.warn('voice-gateway: vite is not installed (devDependencies omitted?), so the console is not built; the API works without it.');
  process.exit(0);
}
console.log(builtAt ? 'voice-gateway: the console sources changed; rebuilding it' : 'voice-gateway: building the console');
// NODE_ENV=production even under a test runner (which sets it to test), so React is its production build.
const result = spawnSync(process.execPath, [vite, 'build', '--config', 'console/vite.config.ts', '--logLevel', 'warn'], {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, NODE_ENV: 'production' },
});
process.exit(result.status ?? 1);
