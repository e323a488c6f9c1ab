import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseBadging, parseXmlTree, type Badging, type XmlElement } from './aapt-dump.js';
import { checkApiLevel, formatViolation, JarClassPath } from './api-level.js';
import { checkOverrides, checkWakeCalls } from './behaviour-checks.js';
import { parseDexdump, type DexClass } from './dexdump.js';
import { run, runOk } from './exec.js';
import { findJdk } from './jdk.js';
import { checkHelperProviderCode, checkHelperProviderManifest, checkNoLocalSockets } from './helper-checks.js';
import { checkSelfStartCode, checkSelfStartManifest } from './selfstart-checks.js';
import { checkManifest, manifestClasses, type CheckResult, type ManifestExpectations } from './manifest-checks.js';
import { ANDROID_DIR, MIN_SDK, PLATFORM_API } from './paths.js';
import { checkSdkGuards, DEFAULT_GUARD_LEVEL } from './sdk-guards.js';
import { stubLevelsOf } from './stub-levels.js';
import { apksignerArgs, type Toolchain } from './toolchain.js';
import { ZipArchive } from './zip.js';

export type { CheckResult, ManifestExpectations } from './manifest-checks.js';

/** The only classes that may call APIs above 23, each call behind a Build.VERSION.SDK_INT check. */
export const COMPAT_PACKAGE = 'dev/voicegateway/app/compat/';

/**
 * java.* members newer than API 23 that libraries call and that every supported phone has (their
 * API level is at most minSdk 26), with the level each was added in.
 */
export const LIBRARY_MEMBERS_ABOVE_PLATFORM: ReadonlyMap<string, number> = new Map([
  // zxing core's QR finder pattern search sorts with List.sort (a Java 8 default method, API 24).
  ['method java.util.List.sort(Ljava/util/Comparator;)V', 24],
]);

/** apksigner verify: the APK verifies, signed with the v2 and v3 schemes. */
export async function checkSignature(apk: string, tc: Toolchain): Promise<CheckResult> {
  const result = await run(findJdk()?.java ?? 'java', apksignerArgs(tc, ['verify', '-v', '--min-sdk-version', String(MIN_SDK), apk]));
  const problems: string[] = [];
  if (result.code !== 0) problems.push(`apksigner verify failed: ${(result.stderr || result.stdout).trim().split('\n').slice(0, 5).join(' / ')}`);
  else {
    for (const scheme of ['v2', 'v3']) {
      if (!new RegExp(`^Verified using ${scheme} scheme .*: true$`, 'm').test(result.stdout)) problems.push(`not signed with the ${scheme} scheme`);
    }
  }
  return { name: 'apksigner verify (v2 + v3)', problems };
}

/** zipalign -c -p 4: every stored entry 4-byte aligned, shared libraries page aligned. */
export async function checkAlignment(apk: string, tc: Toolchain): Promise<CheckResult> {
  const result = await run(tc.zipalign, ['-c', '-p', '-v', '4', apk], { env: tc.env });
  // With -v, each misaligned entry is a line `<offset> <name> (BAD - <remainder>)`.
  const bad = result.stdout.split('\n').filter((l) => /\(BAD/.test(l)).map((l) => l.trim());
  return { name: 'zipalign -c -p 4', problems: result.code === 0 ? [] : bad.length ? bad : [`zipalign -c failed: ${(result.stderr || result.stdout).trim()}`] };
}

/** Android 11+ refuses to install an APK targeting 30+ whose resources.arsc is compressed or unaligned. */
export function checkStoredResources(apk: string): CheckResult {
  const entry = new ZipArchive(readFileSync(apk)).entries.get('resources.arsc');
  const problems: string[] = [];
  if (!entry) problems.push('resources.arsc is missing');
  else {
    if (entry.method !== 0) problems.push(`resources.arsc is compressed (method ${entry.method}); it must be stored`);
    if (entry.dataOffset % 4 !== 0) problems.push(`resources.arsc starts at offset ${entry.dataOffset}, not 4-byte aligned`);
  }
  return { name: 'resources.arsc stored and aligned', problems };
}

export async function dumpManifest(apk: string, tc: Toolchain): Promise<{ badging: Badging; manifest: XmlElement }> {
  const badging = await runOk('aapt dump badging', tc.aapt, ['dump', 'badging', apk], { env: tc.env });
  const tree = await runOk('aapt dump xmltree', tc.aapt, ['dump', 'xmltree', apk, 'AndroidManifest.xml'], { env: tc.env });
  return { badging: parseBadging(badging.stdout), manifest: parseXmlTree(tree.stdout) };
}

export async function dumpDex(apk: string, tc: Toolchain): Promise<DexClass[]> {
  const result = await runOk('dexdump -d', tc.dexdump, ['-d', apk], { env: tc.env });
  return parseDexdump(result.stdout);
}

/** dx turns lambdas and method references into invoke-custom, which ART has no bootstrap for. */
export function checkNoInvokeCustom(classes: readonly DexClass[]): CheckResult {
  return {
    name: 'no invoke-custom (lambdas, method references) in the dex',
    problems: classes.filter((c) => c.invokeCustom > 0).map((c) => `${c.name.replace(/\//g, '.')}: ${c.invokeCustom} invoke-custom instruction(s); use an anonymous class`),
  };
}

/** Every method, field and class the dex uses exists in API 23, except in the compat classes. */
export function checkPlatformApi(classes: readonly DexClass[], tc: Toolchain): CheckResult {
  const allowed = new Set([...LIBRARY_MEMBERS_ABOVE_PLATFORM].filter(([, level]) => level <= MIN_SDK).map(([reference]) => reference));
  const violations = checkApiLevel(classes, new JarClassPath([tc.androidJar]), {
    api: PLATFORM_API,
    exempt: (name) => name.startsWith(COMPAT_PACKAGE),
    allowed,
  });
  return { name: `every platform reference exists in API ${PLATFORM_API} (outside ${COMPAT_PACKAGE.replace(/\//g, '.')})`, problems: violations.map(formatViolation) };
}

/**
 * In the compat classes, every reference that API 23 lacks runs only where Build.VERSION.SDK_INT was
 * proven at least its level (the stubs' stated level, else 24): sdk-guards.ts.
 */
export function checkCompatGuards(classes: readonly DexClass[], tc: Toolchain, stubsDir = path.join(ANDROID_DIR, 'app/stubs')): CheckResult {
  const problems = checkSdkGuards(classes, new JarClassPath([tc.androidJar]), {
    api: PLATFORM_API,
    compat: (name) => name.startsWith(COMPAT_PACKAGE),
    levelOf: stubLevelsOf(stubsDir),
    allowed: new Set(LIBRARY_MEMBERS_ABOVE_PLATFORM.keys()),
  });
  return { name: `every API above ${PLATFORM_API} in ${COMPAT_PACKAGE.replace(/\//g, '.')} behind a Build.VERSION.SDK_INT guard (>= its level, else ${DEFAULT_GUARD_LEVEL})`, problems };
}

/** The compile-only stubs are never packaged: the dex defines no class of the platform's packages. */
export function checkNoPlatformClasses(classes: readonly DexClass[]): CheckResult {
  return {
    name: 'no stub or platform class packaged',
    problems: classes.filter((c) => /^(android|java|javax|dalvik)\//.test(c.name)).map((c) => `${c.name.replace(/\//g, '.')} is in the dex (stubs are compile-only)`),
  };
}

/** Each class the manifest names (application, activities, services, receivers) is in the dex. */
export function checkComponentsInDex(classes: readonly DexClass[], manifest: XmlElement, packageName: string): CheckResult {
  const defined = new Set(classes.map((c) => c.name.replace(/\//g, '.')));
  return {
    name: 'every class the manifest names is in the dex',
    problems: manifestClasses(manifest, packageName)
      .filter((n) => !defined.has(n))
      .map((n) => `${n} is named in the manifest but not in the dex`),
  };
}

/** Every static check of a built APK. */
export async function checkApk(apk: string, tc: Toolchain, expected: ManifestExpectations): Promise<CheckResult[]> {
  const [signature, alignment, { badging, manifest }, classes] = await Promise.all([checkSignature(apk, tc), checkAlignment(apk, tc), dumpManifest(apk, tc), dumpDex(apk, tc)]);
  return [
    signature,
    alignment,
    checkStoredResources(apk),
    ...checkManifest(manifest, badging, expected),
    checkNoInvokeCustom(classes),
    checkPlatformApi(classes, tc),
    checkCompatGuards(classes, tc),
    checkNoPlatformClasses(classes),
    checkComponentsInDex(classes, manifest, expected.packageName),
    checkNoLocalSockets(classes),
    checkHelperProviderManifest(manifest, expected.packageName),
    checkHelperProviderCode(classes),
    checkOverrides(classes),
    checkWakeCalls(classes),
    checkSelfStartManifest(manifest, expected.packageName),
    checkSelfStartCode(classes),
  ];
}
