import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { compileHost } from '../scripts/android/host.js';
import { ensureToolchain } from '../scripts/android/toolchain.js';
import { JDK, NO_JDK_REASON, skipAndroid } from './android/support.js';
import { CLUSTER_POSTGRES_URL, CLUSTER_SKIP_REASON } from './helpers/postgres.js';

/**
 * Vitest global setup: the browser tests drive the built console, so build it first when stale.
 * The Android tests need the toolchain and the app's core compiled for the host JVM: fetched and
 * compiled once here, since test files run in parallel. Without a JDK they skip themselves, and
 * this says so once, plainly, in the run's output; so do the cluster's tests without PostgreSQL.
 */
export default async function setup(): Promise<void> {
  // Each vitest project runs this setup; the line is worth reading once.
  const noted = globalThis as { androidSkipNoted?: boolean; clusterSkipNoted?: boolean };
  if (skipAndroid && !noted.androidSkipNoted) console.log(`\n${NO_JDK_REASON}\n`);
  noted.androidSkipNoted = true;
  if (!CLUSTER_POSTGRES_URL && !noted.clusterSkipNoted) console.log(`\n${CLUSTER_SKIP_REASON}\n`);
  noted.clusterSkipNoted = true;
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
  const result = spawnSync(process.execPath, [path.join(root, 'scripts/ensure-console.js')], { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) throw new Error('building the console failed (scripts/ensure-console.js)');
  if (!JDK) return;
  const tc = await ensureToolchain({ log: (line) => console.log(`android toolchain: ${line}`) });
  compileHost(tc, JDK.javac);
}
