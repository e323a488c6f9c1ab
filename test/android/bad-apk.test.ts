import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  checkAlignment,
  checkCompatGuards,
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
import { checkHelperProviderCode, checkHelperProviderManifest, checkNoLocalSockets } from '../../scripts/android/helper-checks.js';
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
  public static Object orName(String id) {
    if (Build.VERSION.SDK_INT >= 26) {
      return new NotificationChannel(id, "Calls", 2);
    } else {
      return id;
    }
  }
  public static Object strict(String id) {
    if (Build.VERSION.SDK_INT < 26) throw new UnsupportedOperationException("API 26");
    return new NotificationChannel(id, "Calls", 2);
  }
}
`;
/** The same call in compat/ without a guard, and with the guard the wrong way round. */
const UNGUARDED = `package dev.voicegateway.app.compat;
import android.app.NotificationChannel;
import android.os.Build;
public final class Unguarded {
  public static Object create(String id) { return new NotificationChannel(id, "Calls", 4); }
  public static Object backwards(String id) {
    if (Build.VERSION.SDK_INT < 26) return new NotificationChannel(id, "Calls", 4);
    return null;
  }
}
`;
/** The helper's provider as the Binder channel declares it: the shell's uid checked before anything else. */
const provider = (guarded: boolean): string => `package dev.voicegateway.app.helper;
import android.content.ContentValues;
import android.database.Cursor;
import android.net.Uri;
import android.os.Binder;
import android.os.Bundle;
import dev.voicegateway.core.helper.PeerPolicy;
public final class HelperProvider extends android.content.ContentProvider {
  @Override public boolean onCreate() { return true; }
  @Override public Bundle call(String method, String arg, Bundle extras) {
    ${guarded ? 'PeerPolicy.requireShell(Binder.getCallingUid());' : ''}
    Bundle reply = new Bundle();
    reply.putString("method", method);
    return reply;
  }
  @Override public Cursor query(Uri uri, String[] projection, String selection, String[] args, String order) { return null; }
  @Override public String getType(Uri uri) { return null; }
  @Override public Uri insert(Uri uri, ContentValues values) { return null; }
  @Override public int delete(Uri uri, String selection, String[] args) { return 0; }
  @Override public int update(Uri uri, ContentValues values, String selection, String[] args) { return 0; }
}
`;
const PEER_POLICY = `package dev.voicegateway.core.helper;
public final class PeerPolicy {
  public static void requireShell(int uid) { if (uid != 2000) throw new SecurityException("uid " + uid + " is not the shell"); }
}
`;
/** An app↔helper channel over an abstract local socket: what the Binder channel replaced. */
const LOCAL_SOCKET = `package dev.voicegateway.app.helper;
public final class Listener {
  public static Object listen() throws java.io.IOException { return new android.net.LocalServerSocket("voice-gateway-helper"); }
}
`;
const PROVIDER_XML = '<provider android:name=".helper.HelperProvider" android:authorities="dev.voicegateway.app.audio-helper" android:exported="true"';

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
    ${PROVIDER_XML} android:permission="android.permission.INTERACT_ACROSS_USERS_FULL" />
  </application>
</manifest>`,
      'app/res/values/strings.xml': '<resources><string name="app_name">Probe</string></resources>',
      'app/stubs/android/app/NotificationChannel.java': STUB,
      'app/compat/dev/voicegateway/app/compat/Channels.java': COMPAT,
      'app/src/dev/voicegateway/app/helper/HelperProvider.java': provider(true),
      'app/src/dev/voicegateway/core/helper/PeerPolicy.java': PEER_POLICY,
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
      checkCompatGuards(classes, tc, path.join(root, 'android/app/stubs')),
      checkNoPlatformClasses(classes),
      checkComponentsInDex(classes, manifest, 'dev.voicegateway.app'),
      checkNoLocalSockets(classes),
      checkHelperProviderManifest(manifest, 'dev.voicegateway.app'),
      checkHelperProviderCode(classes),
    ]) {
      expect(result.problems, show(result)).toEqual([]);
    }
  });

  it('the API check names the class outside compat that uses an API above 23, and the lambda check the class with a lambda', async () => {
    const out = path.join(root, 'bad');
    const sources = {
      'src/dev/voicegateway/app/Careless.java': OUTSIDE_COMPAT,
      'src/dev/voicegateway/app/compat/Channels.java': COMPAT,
      'src/dev/voicegateway/app/compat/Unguarded.java': UNGUARDED,
      'src/dev/voicegateway/app/helper/HelperProvider.java': provider(false),
      'src/dev/voicegateway/app/helper/Listener.java': LOCAL_SOCKET,
      'src/dev/voicegateway/core/helper/PeerPolicy.java': PEER_POLICY,
    };
    writeTree(out, { ...sources, 'stubs/android/app/NotificationChannel.java': STUB });
    await runOk('javac stub', jdk.javac, ['--release', '8', '-d', path.join(out, 'stubs-classes'), '-cp', tc.androidJar, path.join(out, 'stubs/android/app/NotificationChannel.java')]);
    const bootclasspath = `${path.join(out, 'stubs-classes')}:${tc.androidJar}`;
    await runOk('javac', jdk.javac, ['-source', '8', '-target', '8', '-Xlint:-options', '-bootclasspath', bootclasspath, '-d', path.join(out, 'classes'), ...Object.keys(sources).map((f) => path.join(out, f))]);
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

  it('the guard check names each compat reference to the API 26 stub that no SDK_INT >= 26 guards, and passes the guarded ones (early return, if/else, throw)', async () => {
    const classes = await dumpDex(path.join(root, 'bad', 'bad.dex'), tc);
    // The fixture's stub states no level: the rule's 24 applies, so a guard of 26 is more than enough.
    const guards = checkCompatGuards(classes, tc, path.join(root, 'bad', 'stubs'));
    const ctor = 'method android.app.NotificationChannel.<init>(Ljava/lang/String;Ljava/lang/CharSequence;I)V';
    const unguarded = (m: string, ref: string): string => `dev.voicegateway.app.compat.Unguarded.${m}(Ljava/lang/String;)Ljava/lang/Object;: ${ref} (API 24) is not behind a Build.VERSION.SDK_INT >= 24 guard`;
    expect(guards.problems, show(guards)).toEqual([
      unguarded('backwards', 'class android.app.NotificationChannel'),
      unguarded('backwards', ctor),
      unguarded('create', 'class android.app.NotificationChannel'),
      unguarded('create', ctor),
    ]);
    // With the stub's level stated, a guard below it fails too.
    writeTree(path.join(root, 'bad', 'stubs-29'), { 'android/app/NotificationChannel.java': STUB.replace('public final class', '/** Compile-only stub (never packaged). API 29. */\npublic final class') });
    const at29 = checkCompatGuards(classes, tc, path.join(root, 'bad', 'stubs-29'));
    expect(at29.problems.filter((p) => p.includes('Channels.create'))).toEqual([
      `dev.voicegateway.app.compat.Channels.create(Ljava/lang/String;)Ljava/lang/Object;: class android.app.NotificationChannel needs API 29 but runs where only SDK_INT >= 26 is proven`,
      `dev.voicegateway.app.compat.Channels.create(Ljava/lang/String;)Ljava/lang/Object;: ${ctor} needs API 29 but runs where only SDK_INT >= 26 is proven`,
      `dev.voicegateway.app.compat.Channels.create(Ljava/lang/String;)Ljava/lang/Object;: method android.app.NotificationChannel.setDescription(Ljava/lang/String;)V needs API 29 but runs where only SDK_INT >= 26 is proven`,
    ]);
    for (const method of ['orName', 'strict']) expect(at29.problems.filter((p) => p.includes(`Channels.${method}(`)), show(at29)).toHaveLength(2);
  });

  it('the helper checks name a class with a LocalServerSocket and a HelperProvider.call without the shell guard', async () => {
    const classes = await dumpDex(path.join(root, 'bad', 'bad.dex'), tc);
    expect(checkNoLocalSockets(classes).problems).toEqual([
      'dev.voicegateway.app.helper.Listener uses android.net.LocalServerSocket: the app↔helper channel is Binder (HelperProvider.call and a socketpair passed as a ParcelFileDescriptor), never a local socket',
    ]);
    expect(checkHelperProviderCode(classes).problems).toEqual([
      'dev.voicegateway.app.helper.HelperProvider.call(Ljava/lang/String;Ljava/lang/String;Landroid/os/Bundle;)Landroid/os/Bundle; does not begin with Binder.getCallingUid()',
    ]);
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
      .replace('<uses-permission android:name="android.permission.CAMERA" />', '<uses-permission android:name="android.permission.CAMERA" />\n<uses-permission android:name="android.permission.READ_CONTACTS" />')
      // HelperProvider exported to anyone: whatever the app declares, the provider without its permission.
      .replace(/<provider[^>]*HelperProvider[^>]*?(\/>|>[\s\S]*?<\/provider>)/, '')
      .replace('</application>', `${PROVIDER_XML} />\n</application>`);
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
    expect(checkHelperProviderManifest(dumped.manifest, 'dev.voicegateway.app').problems).toEqual([
      'provider .helper.HelperProvider must be protected by android:permission="android.permission.INTERACT_ACROSS_USERS_FULL" (got null)',
    ]);
  });
});
