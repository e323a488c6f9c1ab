import { crc32, deflateRawSync } from 'node:zlib';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { findJdk, NO_JDK_MESSAGE, type Jdk } from '../../scripts/android/jdk.js';
import type { CheckResult } from '../../scripts/android/apk-checks.js';
import { compileHost, type HostBuild } from '../../scripts/android/host.js';
import { existingToolchain } from '../../scripts/android/toolchain.js';

export type { Jdk };

/** The JDK, or undefined. */
export const JDK = findJdk();
export const NO_JDK_REASON = `Android tests skipped: ${NO_JDK_MESSAGE}`;

/**
 * Without javac the tests that build the APK are skipped (test/global-setup.ts says so once), except
 * in CI (`CI` set, as for the browser tests), where a missing JDK fails the run instead of hiding it.
 */
export const skipAndroid = !JDK && !process.env.CI;

/** The JDK, for a suite that runs: in CI without one, its first hook fails with how to install it. */
export function requireJdk(): Jdk {
  if (!JDK) throw new Error(NO_JDK_MESSAGE);
  return JDK;
}

/**
 * The app's core, the host runner and the JUnit tests compiled for the host JVM (test/global-setup.ts
 * fetched the toolchain and compiled them once; this only checks they are up to date).
 */
export function hostBuild(): HostBuild {
  const tc = existingToolchain();
  if (!tc) throw new Error('the Android toolchain is missing; test/global-setup.ts fetches it when a JDK is present');
  return compileHost(tc, requireJdk().javac);
}

/** Long enough to fetch the toolchain (about 15 s) and build from nothing on two busy cores. */
export const BUILD_TIMEOUT_MS = 5 * 60_000;

export const tempDir = (): string => mkdtempSync(path.join(tmpdir(), 'vg-android-'));

/** A check's problems, for assertion messages. */
export const show = (check: CheckResult | undefined): string => (check ? `${check.name}:\n  ${check.problems.join('\n  ')}` : 'no such check');

/**
 * A zip archive written entry by entry, so a test controls compression and offsets (an APK with a
 * compressed or misaligned resources.arsc). `pad` puts that many bytes of extra field before an
 * entry's data.
 */
export function writeZip(entries: ReadonlyArray<{ name: string; data: Buffer; deflate?: boolean; pad?: number }>): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const body = e.deflate ? deflateRawSync(e.data) : e.data;
    const name = Buffer.from(e.name);
    const extra = Buffer.alloc(e.pad ?? 0);
    const crc = crc32(e.data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(e.deflate ? 8 : 0, 8);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(body.length, 18);
    local.writeUInt32LE(e.data.length, 22);
    local.writeUInt16LE(name.length, 26);
    local.writeUInt16LE(extra.length, 28);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(e.deflate ? 8 : 0, 10);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(body.length, 20);
    central.writeUInt32LE(e.data.length, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, extra, body);
    centrals.push(central, name);
    offset += 30 + name.length + extra.length + body.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}
