import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository's root (scripts/android/ is two levels below it). */
export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The Android sources: android/core, android/app (manifest, res, src, compat, stubs). */
export const ANDROID_DIR = path.join(REPO_ROOT, 'android');

export const MIN_SDK = 26;
export const TARGET_SDK = 34;
/** The newest android.jar Debian packages; anything newer is reached only through compat/. */
export const PLATFORM_API = 23;

/** The app's version is the repository's: package.json `version`. */
export function packageVersion(): string {
  return (JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }).version;
}
