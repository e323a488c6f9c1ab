import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { checkApk, dumpManifest, type CheckResult } from '../../scripts/android/apk-checks.js';
import { buildApk, type BuildResult } from '../../scripts/android/build.js';
import { ANDROID_DIR, packageVersion } from '../../scripts/android/paths.js';
import { ensureToolchain, type Toolchain } from '../../scripts/android/toolchain.js';
import { BUILD_TIMEOUT_MS, requireJdk, show, skipAndroid } from './support.js';

/**
 * Every permission the app requests, and only these: a change to the manifest's permissions must
 * change this list too (and docs/android.md, which says what each is for).
 */
const PERMISSIONS = [
  'android.permission.INTERNET',
  'android.permission.ACCESS_NETWORK_STATE',
  'android.permission.FOREGROUND_SERVICE',
  'android.permission.FOREGROUND_SERVICE_CONNECTED_DEVICE',
  'android.permission.CHANGE_NETWORK_STATE',
  'android.permission.RECEIVE_BOOT_COMPLETED',
  'android.permission.REQUEST_IGNORE_BATTERY_OPTIMIZATIONS',
  'android.permission.CALL_PHONE',
  'android.permission.POST_NOTIFICATIONS',
  'android.permission.USE_FULL_SCREEN_INTENT',
  'android.permission.CAMERA',
  'android.permission.WAKE_LOCK',
  'android.permission.WRITE_SECURE_SETTINGS',
];

const hasJava = (dir: string): boolean => existsSync(dir) && readdirSync(dir, { recursive: true }).some((f) => String(f).endsWith('.java'));
// The app's Android classes come from their own branch; until they are in, the manifest names classes the dex cannot have.
const appSourcesMissing = !hasJava(path.join(ANDROID_DIR, 'app/src'));

describe.skipIf(skipAndroid)('the built APK (npm run build:android)', () => {
  let tc: Toolchain;
  let build: BuildResult;
  let checks: CheckResult[];
  const check = (name: string): CheckResult | undefined => checks.find((c) => c.name === name);
  const passes = (name: string): void => {
    const result = check(name);
    expect(result, `no check named ${name}: ${checks.map((c) => c.name).join(', ')}`).toBeDefined();
    expect(result!.problems, show(result)).toEqual([]);
  };

  beforeAll(async () => {
    requireJdk();
    tc = await ensureToolchain();
    build = await buildApk({ toolchain: tc });
    checks = await checkApk(build.apk, tc, { packageName: 'dev.voicegateway.app', minSdk: 26, targetSdk: 34, permissions: PERMISSIONS });
  }, BUILD_TIMEOUT_MS);

  it('is at android/build/voice-gateway.apk, versioned from package.json, and not rebuilt when nothing changed', async () => {
    expect(build.apk).toBe(path.join(ANDROID_DIR, 'build/voice-gateway.apk'));
    const { badging } = await dumpManifest(build.apk, tc);
    expect(badging.versionName).toBe(packageVersion());
    expect(badging.versionCode).toBe(build.versionCode);
    const again = await buildApk({ toolchain: tc });
    expect(again.rebuilt).toBe(false);
  });

  it('verifies with apksigner, signed with the v2 and v3 schemes', () => passes('apksigner verify (v2 + v3)'));
  it('is aligned (zipalign -c -p 4)', () => passes('zipalign -c -p 4'));
  it('keeps resources.arsc stored and aligned (Android 11+ refuses it compressed)', () => passes('resources.arsc stored and aligned'));
  it('is dev.voicegateway.app, targetSdk 34, minSdk 26 or more, with a launcher', () => passes('package, SDK levels and launcher'));
  it('requests exactly the expected permissions', () => passes('exactly the expected permissions'));
  it('sets android:exported on every activity, service and receiver', () => passes('android:exported set on every component'));
  it('has the InCallService with BIND_INCALL_SERVICE, IN_CALL_SERVICE_UI and its intent filter', () => passes('InCallService for the dialer role'));
  it('handles ACTION_DIAL with and without tel: (the dialer role asks for both)', () => passes('dialer intent filters (ACTION_DIAL with and without tel:)'));
  it('opens voicegateway://pair links', () => passes('deep link voicegateway://pair'));
  it('declares its foreground service type with the permissions that type needs', () => passes('foreground service types and their permissions'));
  it('has no invoke-custom (lambdas) in its dex', () => passes('no invoke-custom (lambdas, method references) in the dex'));
  it('uses nothing above API 23 outside the compat classes', () => passes('every platform reference exists in API 23 (outside dev.voicegateway.app.compat.)'));
  it('calls APIs above 23 in compat only behind a Build.VERSION.SDK_INT guard of their level (else 24)', () =>
    passes('every API above 23 in dev.voicegateway.app.compat. behind a Build.VERSION.SDK_INT guard (>= its level, else 24)'));
  it('packages no compile-only stub', () => passes('no stub or platform class packaged'));
  it('uses no LocalServerSocket, LocalSocket or LocalSocketAddress: the helper channel is Binder', () =>
    passes('no LocalServerSocket, LocalSocket or LocalSocketAddress in the dex (the helper channel is Binder)'));
  it('declares HelperProvider exported only to INTERACT_ACROSS_USERS_FULL holders, and its call refuses all but the shell first', () => {
    passes('HelperProvider declared: authority, exported only to INTERACT_ACROSS_USERS_FULL holders');
    passes('HelperProvider.call rejects every uid but the shell before anything else');
  });
  it('overrides InCallService.onBringToForeground ("Return to call")', () => passes('the platform callbacks the app relies on are overridden'));
  it('takes a wake lock with a timeout and sets an alarm allowed while idle (reconnect in deep sleep)', () => passes('the wake lock and the alarm of the reconnect are used'));
  it('declares WRITE_SECURE_SETTINGS for the grant, a boot receiver (not locked-boot), and a private receiver for the pairing code', () =>
    passes('self-start declared: WRITE_SECURE_SETTINGS, the boot receiver, the private pairing-code receiver'));
  it('reads the pairing code from a RemoteInput reply, discovers and resolves with NsdManager, and writes Settings.Global', () =>
    passes('self-start code: the reply receiver, NsdManager, RemoteInput and Settings.Global calls'));
  it.skipIf(appSourcesMissing)('has every class its manifest names', () => passes('every class the manifest names is in the dex'));
});
