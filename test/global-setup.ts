import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { NO_JDK_REASON, skipAndroid } from './android/support.js';

/**
 * Vitest global setup: the browser tests drive the built console, so build it first when stale.
 * Without a JDK the Android tests skip themselves; this says so once, plainly, in the run's output.
 */
export default function setup(): void {
  // Each vitest project runs this setup; the line is worth reading once.
  const noted = globalThis as { androidSkipNoted?: boolean };
  if (skipAndroid && !noted.androidSkipNoted) console.log(`\n${NO_JDK_REASON}\n`);
  noted.androidSkipNoted = true;
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
  const result = spawnSync(process.execPath, [path.join(root, 'scripts/ensure-console.js')], { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) throw new Error('building the console failed (scripts/ensure-console.js)');
}
