import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  checkAlignment,
  checkComponentsInDex,
  checkNoInvokeCustom,
  checkNoPlatformClasses,
  checkPlatformApi,
  checkSignature,
  checkStoredResources,
  dumpDex,
  dumpManifest,
} from '../../scripts/android/apk-checks.js';
import { buildApk, type BuildResult } from '../../scripts/android/build.js';
import { runOk } from '../../scripts/android/exec.js';
import { checkManifest } from '../../scripts/android/manifest-checks.js';
import { ANDROID_DIR } from '../../scripts/android/paths.js';
import { ensureLocalKey } from '../../scripts/android/signing.js';
import { ensureToolchain, type Toolchain } from '../../scripts/android/toolchain.js';
import { BUILD_TIMEOUT_MS, requireJdk, show, skipAndroid, tempDir, writeZip, type Jdk } from './support.js';

/** Writes files below `root` from a map of relative paths. */
function writeTree(root: string, files: Record<string, string>): void {
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), text);
  }
}

// A stub of an API 26 class, as android-api-34-excerpts.txt gives it (compile-only, never packaged).
const STUB = `package android.app;
public final class NotificationChannel {
  public NotificationChannel(String id, CharSequence name, int importance) { throw new RuntimeException("Stub!"); }
  public void setDescription(String description) { throw new RuntimeException("Stub!"); }
}
`;
const COMPAT = `package dev.voicegateway.app.compat;
import android.app.NotificationChannel;
import android.os.Build;
public final class Channels {
  private Channels() {}
  public static Object create(String id) {
    if (Build.VERSION.SDK_INT < 26) return null;
    NotificationChannel channel = new NotificationChannel(id, "Calls", 4);
    channel.setDescription("incoming calls");
    return channel;
  }
}
`;
/** The same call outside compat/: what the API check exists to catch. */
const OUTSIDE_COMPAT = `package dev.voicegateway.app;
public final class Careless {
  public static Object channel() { return new android.app.NotificationChannel("calls", "Calls", 4); }
}
`;

describe.skipIf(skipAndroid)('the build and the checks on small, deliberately good and bad inputs', () => {
  let jdk: Jdk;
  let tc: Toolchain;
  let root: string;
  let built: BuildResult;

  beforeAll(async () => {
    jdk = requireJdk();
    tc = await ensureToolchain();
    root = tempDir();
    // A tiny app with stubs, a compat class and an activity that calls it: the whole pipeline.
    writeTree(path.join(root, 'android'), {
      'app/AndroidManifest.xml': `<manifest xmlns:android="http://schemas.android.com/apk/res/android" package="dev.voicegateway.app">
  <application android:label="@string/app_name">
    <activity android:name=".Main" android:exported="true">
      <intent-filter><action android:name="android.intent.action.MAIN" /><category android:name="android.intent.category.LAUNCHER" /></intent-filter>
    </activity>
  </application>
</manifest>`,
      'app/res/values/strings.xml': '<resources><string name="app_name">Probe</string></resources>',
      'app/stubs/android/app/NotificationChannel.java': STUB,
      'app/compat/dev/voicegateway/app/compat/Channels.java': COMPAT,
      'app/src/dev/voicegateway/app/Main.java': `package dev.voicegateway.app;
public class Main extends android.app.Activity {
  @Override protected void onCreate(android.os.Bundle state) {
    super.onCreate(state);
    setTitle(getString(R.string.app_name) + (dev.voicegateway.app.compat.Channels.create("calls") != null));
  }
}
`,
    });
    built = await buildApk({
      // Relative, as a person would type it: the build must not depend on its working directory.
      androidDir: path.relative(process.cwd(), path.join(root, 'android')),
      toolchain: tc,
      signingKey: await ensureLocalKey(jdk.keytool, path.join(root, 'keystore')),
      version: '1.2.3',
    });
  }, BUILD_TIMEOUT_MS);
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('builds stubs, compat and app into a signed APK: compat is packaged, the stub is not, and every check passes', async () => {
    expect(built.rebuilt).toBe(true);
    expect(built.versionCode).toBe(1_002_003);
    const classes = await dumpDex(built.apk, tc);
    expect(classes.map((c) => c.name).sort()).toEqual(expect.arrayContaining(['dev/voicegateway/app/Main', 'dev/voicegateway/app/compat/Channels', 'com/google/zxing/qrcode/QRCodeReader']));
    const { manifest } = await dumpManifest(built.apk, tc);
    for (const result of [
      await checkSignature(built.apk, tc),
      await checkAlignment(built.apk, tc),
      checkStoredResources(built.apk),
      checkNoInvokeCustom(classes),
      checkPlatformApi(classes, tc),
      checkNoPlatformClasses(classes),
      checkComponentsInDex(classes, manifest, 'dev.voicegateway.app'),
    ]) {
      expect(result.problems, show(result)).toEqual([]);
    }
  });

  it('the API check names the class outside compat that uses an API above 23, and the lambda check the class with a lambda', async () => {
    const out = path.join(root, 'bad');
    writeTree(out, { 'src/dev/voicegateway/app/Careless.java': OUTSIDE_COMPAT, 'src/dev/voicegateway/app/compat/Channels.java': COMPAT, 'stubs/android/app/NotificationChannel.java': STUB });
    await runOk('javac stub', jdk.javac, ['--release', '8', '-d', path.join(out, 'stubs-classes'), '-cp', tc.androidJar, path.join(out, 'stubs/android/app/NotificationChannel.java')]);
    const bootclasspath = `${path.join(out, 'stubs-classes')}:${tc.androidJar}`;
    await runOk('javac', jdk.javac, ['-source', '8', '-target', '8', '-Xlint:-options', '-bootclasspath', bootclasspath, '-d', path.join(out, 'classes'), path.join(out, 'src/dev/voicegateway/app/Careless.java'), path.join(out, 'src/dev/voicegateway/app/compat/Channels.java')]);
    // android.jar 23 has no LambdaMetafactory, so a lambda only compiles against the JDK's classes.
    await runOk('javac lambda', jdk.javac, ['--release', '8', '-d', path.join(out, 'classes'), path.join(import.meta.dirname, 'fixtures/Lambda.java')]);
    const dex = path.join(out, 'bad.dex');
    await runOk('dx', jdk.java, ['-jar', tc.dxJar, '--dex', '--min-sdk-version=26', `--output=${dex}`, path.join(out, 'classes')]);
    const classes = await dumpDex(dex, tc);

    const api = checkPlatformApi(classes, tc);
    expect(api.problems, show(api)).toEqual([
      'dev.voicegateway.app.Careless: class android.app.NotificationChannel (not in API 23)',
      'dev.voicegateway.app.Careless: method android.app.NotificationChannel.<init>(Ljava/lang/String;Ljava/lang/CharSequence;I)V (class android.app.NotificationChannel is not in API 23)',
    ]);
    expect(checkNoInvokeCustom(classes).problems).toEqual(['dev.voicegateway.app.Lambda: 1 invoke-custom instruction(s); use an anonymous class']);
  });

  it('signature, alignment and resources.arsc checks fail on an unsigned, misaligned, compressed archive', async () => {
    const arsc = Buffer.alloc(1000, 1);
    const compressed = path.join(root, 'compressed.apk');
    writeFileSync(compressed, writeZip([{ name: 'AndroidManifest.xml', data: Buffer.from('x') }, { name: 'resources.arsc', data: arsc, deflate: true, pad: 2 }]));
    const misaligned = path.join(root, 'misaligned.apk');
    // The first entry's data ends at 30 + 19 + 1 = 50; the next header is 30 + 14 long: data at 94.
    writeFileSync(misaligned, writeZip([{ name: 'AndroidManifest.xml', data: Buffer.from('x') }, { name: 'resources.arsc', data: arsc }]));

    expect(checkStoredResources(compressed).problems).toEqual(['resources.arsc is compressed (method 8); it must be stored']);
    expect(checkStoredResources(misaligned).problems).toEqual(['resources.arsc starts at offset 94, not 4-byte aligned']);
    const alignment = await checkAlignment(misaligned, tc);
    expect(alignment.problems.join('\n'), show(alignment)).toContain('94 resources.arsc (BAD - 2)');
    const signature = await checkSignature(misaligned, tc);
    expect(signature.problems.join('\n'), show(signature)).toMatch(/apksigner verify failed/);
  });

  it('the manifest checks fail on a manifest compiled by aapt with a component not exported explicitly and a stray permission', async () => {
    const manifest = readFileSync(path.join(ANDROID_DIR, 'app/AndroidManifest.xml'), 'utf8')
      .replace(/(android:name="\.service\.BootReceiver"\s+)android:exported="true"/, '$1')
      .replace('<uses-permission android:name="android.permission.CAMERA" />', '<uses-permission android:name="android.permission.CAMERA" />\n<uses-permission android:name="android.permission.READ_CONTACTS" />');
    const bad = path.join(root, 'manifest-bad');
    writeTree(bad, { 'AndroidManifest.xml': manifest });
    const apk = path.join(bad, 'resources.apk');
    await runOk('aapt package', tc.aapt, ['package', '-f', '-M', path.join(bad, 'AndroidManifest.xml'), '-S', path.join(ANDROID_DIR, 'app/res'), '-I', tc.frameworkRes, '--min-sdk-version', '26', '--target-sdk-version', '34', '--version-code', '1', '-F', apk], { env: tc.env });
    const dumped = await dumpManifest(apk, tc);
    const expectedPermissions = dumped.badging.permissions.filter((p) => p !== 'android.permission.READ_CONTACTS');
    const failing = checkManifest(dumped.manifest, dumped.badging, { packageName: 'dev.voicegateway.app', minSdk: 26, targetSdk: 34, permissions: expectedPermissions }).filter((r) => r.problems.length);
    expect(Object.fromEntries(failing.map((r) => [r.name, r.problems]))).toEqual({
      'exactly the expected permissions': ['android.permission.READ_CONTACTS is requested but not expected (add it to the expected list if it is meant)'],
      'android:exported set on every component': ['receiver .service.BootReceiver does not set android:exported'],
    });
  });
});
