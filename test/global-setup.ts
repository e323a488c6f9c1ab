import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { compileHost, javaMissing } from '../scripts/android/host.js';

/**
 * Vitest global setup: the browser tests drive the built console, so build it first when stale;
 * the Android host tests run the app's core on the JVM, so compile it once here (test files run in
 * parallel and must not compile it side by side).
 */
export default function setup(): void {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
  const result = spawnSync(process.execPath, [path.join(root, 'scripts/ensure-console.js')], { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) throw new Error('building the console failed (scripts/ensure-console.js)');
  const noJava = javaMissing();
  if (noJava) {
    process.stderr.write(`\nvoice-gateway: the Android tests are SKIPPED: ${noJava}.\n\n`);
    return;
  }
  compileHost();
}
