import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Vitest global setup: the browser tests drive the built console, so build it first when stale. */
export default function setup(): void {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
  const result = spawnSync(process.execPath, [path.join(root, 'scripts/ensure-console.js')], { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) throw new Error('building the console failed (scripts/ensure-console.js)');
}
