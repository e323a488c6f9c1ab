/**
 * npm run build:android            fetch the toolchain when needed, build android/build/voice-gateway.apk
 * npm run build:android -- --force rebuild even when nothing changed
 * tsx scripts/android/cli.ts toolchain   only fetch the toolchain (CI does this first)
 */
import path from 'node:path';
import { buildApk } from './build.js';
import { AndroidToolError } from './exec.js';
import { REPO_ROOT } from './paths.js';
import { ensureToolchain } from './toolchain.js';

const log = (line: string): void => console.log(`android: ${line}`);

async function main(args: string[]): Promise<void> {
  const started = Date.now();
  if (args[0] === 'toolchain') {
    const tc = await ensureToolchain({ log });
    log(`toolchain ready in ${path.relative(REPO_ROOT, tc.dir)} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
    return;
  }
  const unknown = args.filter((a) => a !== 'build' && a !== '--force');
  if (unknown.length) throw new AndroidToolError(`unknown argument ${unknown[0]}; usage: build:android [--force] | toolchain`);
  const result = await buildApk({ force: args.includes('--force'), log });
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  const where = path.relative(REPO_ROOT, result.apk);
  if (!result.rebuilt) log(`${where} is up to date (${result.versionName}, ${seconds} s)`);
  else log(`built ${where}: version ${result.versionName} (code ${result.versionCode}), signed with the ${result.signedWith === 'local' ? 'local key in android/.keystore' : 'key named by VG_ANDROID_KEYSTORE'}, ${seconds} s`);
}

main(process.argv.slice(2)).catch((err: unknown) => {
  console.error(err instanceof AndroidToolError ? `android: ${err.message}` : err);
  process.exit(1);
});
