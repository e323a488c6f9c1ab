import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ANDROID_DIR } from '../../scripts/android/paths.js';
import { checkStubs, compiledMembers, quotedMembers, stubProblems, unpublishedQuotes } from '../../scripts/android/stub-checks.js';
import { ensureToolchain } from '../../scripts/android/toolchain.js';
import { BUILD_TIMEOUT_MS, requireJdk, show, skipAndroid } from './support.js';

/** A stub as the repository writes them: its javadoc quotes android.txt's lines for what it declares. */
const SOURCE = `package android.app;

/**
 * Compile-only stub (never packaged). From the excerpts (34/public/api/android.txt):
 *   public class NotificationManager
 *   method public void createNotificationChannel(@NonNull android.app.NotificationChannel);   (API 26)
 *   field public static final int IMPORTANCE_HIGH = 4; // 0x4                                  (API 24)
 *   public static class Notification.Builder
 *     ctor public Notification.Builder(android.content.Context, String);   (API 26)
 *   method public final <T> T getSystemService(@NonNull Class<T>);
 */
public class NotificationManager {}
`;

/** What javap -public prints for it, compiled. */
const JAVAP = `Compiled from "NotificationManager.java"
public class android.app.NotificationManager {
  public static final int IMPORTANCE_HIGH;
  public void createNotificationChannel(android.app.NotificationChannel);
  public final <T> T getSystemService(java.lang.Class<T>);
}
Compiled from "NotificationManager.java"
public class android.app.Notification$Builder {
  public android.app.Notification$Builder(android.content.Context, java.lang.String);
}
`;

describe('the compile-only stubs keep to the API 34 lines they quote', () => {
  it('reads quoted lines and javap output into the same members: annotations, java.lang and nesting aside', () => {
    expect(quotedMembers(SOURCE)).toEqual(compiledMembers(JAVAP));
    expect([...compiledMembers(JAVAP)].sort()).toEqual([
      'ctor Builder(android.content.Context, String)',
      'field IMPORTANCE_HIGH',
      'method createNotificationChannel(android.app.NotificationChannel)',
      'method getSystemService(Class<T>)',
    ]);
    expect(stubProblems('android.app.NotificationManager', SOURCE, [JAVAP])).toEqual([]);
  });

  it('names a member the stub declares but does not quote: an invented method, a wrong parameter type, an unquoted field', () => {
    const drifted = JAVAP.replace('  public static final int IMPORTANCE_HIGH;', '  public static final int IMPORTANCE_HIGH;\n  public static final int IMPORTANCE_MAX;')
      .replace('createNotificationChannel(android.app.NotificationChannel)', 'createNotificationChannel(java.lang.String)')
      .replace('  public final <T>', '  public boolean areBubblesEnabled();\n  public final <T>');
    expect(stubProblems('android.app.NotificationManager', SOURCE, [drifted])).toEqual([
      'android.app.NotificationManager: field IMPORTANCE_MAX is declared but not quoted from API 34\'s android.txt',
      'android.app.NotificationManager: method createNotificationChannel(String) is declared but not quoted from API 34\'s android.txt',
      'android.app.NotificationManager: method areBubblesEnabled() is declared but not quoted from API 34\'s android.txt',
    ]);
  });

  it.skipIf(skipAndroid)(
    "holds every stub in android/app/stubs to its javadoc's quotes, compiled as the build compiles it",
    async () => {
      const jdk = requireJdk();
      const check = await checkStubs(path.join(ANDROID_DIR, 'app/stubs'), (await ensureToolchain()).androidJar, jdk);
      expect(check.problems, show(check)).toEqual([]);
    },
    BUILD_TIMEOUT_MS,
  );

  /** API 34's published lines, kept in the repository as test data (facts copied from android.txt). */
  const PUBLISHED = readFileSync(path.join(import.meta.dirname, 'fixtures/android-api-34-excerpts.txt'), 'utf8');

  it('finds each quote among the published lines, and names a quote that is not one', () => {
    const published = `  public class NotificationManager {
    method public void createNotificationChannel(@NonNull android.app.NotificationChannel);
    field public static final int IMPORTANCE_HIGH = 4; // 0x4
    method public final <T> T getSystemService(@NonNull Class<T>);
    ctor public Notification.Builder(android.content.Context, String);
    field @RequiresPermission(allOf={x}) public static final int TYPE = 16; // 0x10
`;
    const source = SOURCE.replace(' *   method public final', ' *   field ... public static final int TYPE = 16; // 0x10   (API 29)\n *   method public final');
    expect(unpublishedQuotes('android.app.NotificationManager', source, published)).toEqual([]);
    const drifted = source.replace('createNotificationChannel(@NonNull android.app.NotificationChannel)', 'createNotificationChannel(android.app.NotificationChannel)').replace('TYPE = 16', 'TYPE = 17');
    expect(unpublishedQuotes('android.app.NotificationManager', drifted, published)).toEqual([
      'android.app.NotificationManager: "method public void createNotificationChannel(android.app.NotificationChannel);" is not a line of API 34\'s android.txt',
      'android.app.NotificationManager: "field ... public static final int TYPE = 17;" is not a line of API 34\'s android.txt',
    ]);
  });

  it('holds every stub in android/app/stubs to the published API 34 text, Context and AttributionSource included', () => {
    const dir = path.join(ANDROID_DIR, 'app/stubs');
    const sources = readdirSync(dir, { recursive: true }).map(String).filter((f) => f.endsWith('.java'));
    expect(sources).toContain(path.join('android', 'content', 'Context.java'));
    expect(sources).toContain(path.join('android', 'content', 'AttributionSource.java'));
    const problems = sources.flatMap((f) => unpublishedQuotes(f, readFileSync(path.join(dir, f), 'utf8'), PUBLISHED));
    expect(problems).toEqual([]);
  });
});
