import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { checkNoInvokeCustom, checkNoPlatformClasses } from '../../scripts/android/apk-checks.js';
import { checkApiLevel, formatViolation, type ClassPath } from '../../scripts/android/api-level.js';
import { ACC_INTERFACE, type ClassFile } from '../../scripts/android/classfile.js';
import { checkHelperProviderCode, checkNoLocalSockets } from '../../scripts/android/helper-checks.js';
import { parseDexdump, type DexClass } from '../../scripts/android/dexdump.js';
import { checkSdkGuards, provenSdkLevels, type LevelOf } from '../../scripts/android/sdk-guards.js';
import { levelOf, parameterCount, stubLevels } from '../../scripts/android/stub-levels.js';
import { dexdumpText, type VectorMethod } from './dexdump-text.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const sample = (): DexClass[] => parseDexdump(readFileSync(path.join(here, 'fixtures/sample.dexdump.txt'), 'utf8'));

/** A platform of a few classes, as android.jar would describe them. */
function platform(overrides: Record<string, ClassFile | undefined> = {}): ClassPath {
  const cls = (name: string, superName: string | undefined, members: { methods?: string[]; fields?: string[]; interfaces?: string[]; access?: number } = {}): ClassFile => ({
    name,
    superName,
    interfaces: members.interfaces ?? [],
    access: members.access ?? 1,
    methods: (members.methods ?? []).map((m) => ({ name: m.slice(0, m.indexOf('(')), descriptor: m.slice(m.indexOf('(')), access: 1 })),
    fields: (members.fields ?? []).map((f) => ({ name: f.slice(0, f.indexOf(':')), descriptor: f.slice(f.indexOf(':') + 1), access: 9 })),
  });
  const classes: Record<string, ClassFile | undefined> = {
    'java/lang/Object': cls('java/lang/Object', undefined, { methods: ['<init>()V', 'hashCode()I', 'toString()Ljava/lang/String;'] }),
    'java/lang/Runnable': cls('java/lang/Runnable', 'java/lang/Object', { methods: ['run()V'], access: ACC_INTERFACE }),
    'android/content/Context': cls('android/content/Context', 'java/lang/Object', { methods: ['getString(I)Ljava/lang/String;'] }),
    'android/app/Activity': cls('android/app/Activity', 'android/content/Context', { methods: ['<init>()V', 'setTitle(Ljava/lang/CharSequence;)V'] }),
    'java/util/ArrayList': cls('java/util/ArrayList', 'java/lang/Object', { methods: ['<init>()V'] }),
    'java/lang/String': cls('java/lang/String', 'java/lang/Object', { methods: ['valueOf(I)Ljava/lang/String;'] }),
    'java/lang/IllegalStateException': cls('java/lang/IllegalStateException', 'java/lang/Object'),
    'android/util/Log': cls('android/util/Log', 'java/lang/Object', { methods: ['d(Ljava/lang/String;Ljava/lang/String;)I'] }),
    'android/os/Build$VERSION': cls('android/os/Build$VERSION', 'java/lang/Object', { fields: ['SDK_INT:I'] }),
    'java/lang/System': cls('java/lang/System', 'java/lang/Object', { fields: ['out:Ljava/io/PrintStream;'] }),
    'java/io/PrintStream': cls('java/io/PrintStream', 'java/lang/Object', { methods: ['println(Ljava/lang/String;)V'] }),
    ...overrides,
  };
  return { lookup: (name) => classes[name] };
}

const check = (classes: DexClass[], classPath: ClassPath, exempt: (name: string) => boolean = () => false, allowed?: Set<string>) =>
  checkApiLevel(classes, classPath, { api: 23, exempt, ...(allowed ? { allowed } : {}) }).map(formatViolation);

describe('dexdump reader', () => {
  it('reads each class with its superclass, interfaces, members and the references its code makes', () => {
    const classes = sample();
    expect(classes.map((c) => c.name)).toEqual(['dev/voicegateway/app/Lambda', 'dev/voicegateway/app/Named', 'dev/voicegateway/app/Sample']);
    const s = classes[2]!;
    expect(s.superName).toBe('android/app/Activity');
    expect(s.interfaces).toEqual(['java/lang/Runnable', 'dev/voicegateway/app/Named']);
    expect(s.fields).toEqual([{ name: 'counts', descriptor: '[I' }]);
    expect(s.methods.map((m) => `${m.name}${m.descriptor}`)).toEqual(['<clinit>()V', '<init>()V', 'name()Ljava/lang/String;', 'run()V']);
    expect(classes[1]!.access & ACC_INTERFACE).toBe(ACC_INTERFACE);
    const refs = s.references.map((r) => `${r.via} ${r.kind} ${r.owner}${r.name ? `.${r.name}:${r.descriptor}` : ''}`);
    expect(refs).toEqual(
      expect.arrayContaining([
        'invoke-direct method android/app/Activity.<init>:()V',
        // javac names the receiver's static type: the method itself is Activity's.
        'invoke-virtual method dev/voicegateway/app/Sample.setTitle:(Ljava/lang/CharSequence;)V',
        'new-instance class java/util/ArrayList',
        'new-array class [I',
        'sget field android/os/Build$VERSION.SDK_INT:I',
        'invoke-static method android/util/Log.d:(Ljava/lang/String;Ljava/lang/String;)I',
        'catch class java/lang/IllegalStateException',
      ]),
    );
  });

  it('counts invoke-custom (a lambda) and the check names the class that has it', () => {
    const classes = sample();
    expect(classes.map((c) => c.invokeCustom)).toEqual([1, 0, 0]);
    expect(checkNoInvokeCustom(classes).problems).toEqual(['dev.voicegateway.app.Lambda: 1 invoke-custom instruction(s); use an anonymous class']);
    expect(checkNoInvokeCustom(classes.slice(1)).problems).toEqual([]);
  });

  it('finds platform classes packaged in the dex (a stub must never be)', () => {
    const stub: DexClass = { name: 'android/app/NotificationChannel', access: 1, superName: 'java/lang/Object', interfaces: [], fields: [], methods: [], references: [], invokeCustom: 0 };
    expect(checkNoPlatformClasses(sample()).problems).toEqual([]);
    expect(checkNoPlatformClasses([...sample(), stub]).problems).toEqual(['android.app.NotificationChannel is in the dex (stubs are compile-only)']);
  });
});

describe('API level check', () => {
  it('passes when every reference resolves, through superclasses (setTitle on Sample is Activity\'s)', () => {
    expect(check(sample(), platform())).toEqual([]);
  });

  it('names the class that calls a method the platform lacks, even when inherited through the app\'s own class', () => {
    const noSetTitle = platform({ 'android/app/Activity': { ...platform().lookup('android/app/Activity')!, methods: [{ name: '<init>', descriptor: '()V', access: 1 }] } });
    expect(check(sample(), noSetTitle)).toEqual(['dev.voicegateway.app.Sample: method dev.voicegateway.app.Sample.setTitle(Ljava/lang/CharSequence;)V (not in API 23)']);
  });

  it('reports classes, static methods and fields the platform lacks, each once per calling class', () => {
    const older = platform({ 'android/util/Log': undefined, 'android/os/Build$VERSION': { ...platform().lookup('android/os/Build$VERSION')!, fields: [] } });
    expect(check(sample(), older)).toEqual([
      'dev.voicegateway.app.Sample: field android.os.Build$VERSION.SDK_INT:I (not in API 23)',
      'dev.voicegateway.app.Sample: method android.util.Log.d(Ljava/lang/String;Ljava/lang/String;)I (class android.util.Log is not in API 23)',
    ]);
  });

  it('reports a superclass or caught exception the platform lacks', () => {
    expect(check(sample(), platform({ 'android/app/Activity': undefined }))).toContain('dev.voicegateway.app.Sample: class android.app.Activity (not in API 23)');
    expect(check(sample(), platform({ 'java/lang/IllegalStateException': undefined }))).toEqual(['dev.voicegateway.app.Sample: class java.lang.IllegalStateException (not in API 23)']);
  });

  it('lets the exempt (compat) classes use anything, and only them', () => {
    const bare = platform({ 'android/util/Log': undefined });
    expect(check(sample(), bare, (name) => name === 'dev/voicegateway/app/Sample')).toEqual([]);
    expect(check(sample(), bare, (name) => name === 'dev/voicegateway/app/Lambda')).toHaveLength(1);
  });

  it('resolves Object\'s methods on an interface, and interface methods through the hierarchy', () => {
    const caller: DexClass = {
      name: 'dev/voicegateway/app/Caller',
      access: 1,
      superName: 'java/lang/Object',
      interfaces: [],
      fields: [],
      methods: [],
      references: [
        { kind: 'method', owner: 'dev/voicegateway/app/Named', name: 'hashCode', descriptor: '()I', via: 'invoke-interface' },
        { kind: 'method', owner: 'dev/voicegateway/app/Sample', name: 'run', descriptor: '()V', via: 'invoke-virtual' },
        { kind: 'method', owner: 'java/lang/Runnable', name: 'run', descriptor: '()V', via: 'invoke-interface' },
        { kind: 'method', owner: '[Ljava/lang/String;', name: 'clone', descriptor: '()Ljava/lang/Object;', via: 'invoke-virtual' },
        { kind: 'method', owner: 'java/lang/Runnable', name: 'runFaster', descriptor: '()V', via: 'invoke-interface' },
      ],
      invokeCustom: 0,
    };
    expect(check([...sample(), caller], platform())).toEqual(['dev.voicegateway.app.Caller: method java.lang.Runnable.runFaster()V (not in API 23)']);
  });

  it('accepts a reference on the allowed list', () => {
    const noHash = platform({ 'java/lang/Object': { ...platform().lookup('java/lang/Object')!, methods: [{ name: '<init>', descriptor: '()V', access: 1 }] } });
    expect(check(sample(), noHash)).toEqual(['dev.voicegateway.app.Sample: method java.lang.Object.hashCode()I (not in API 23)']);
    expect(check(sample(), noHash, () => false, new Set(['method java.lang.Object.hashCode()I']))).toEqual([]);
  });
});

const SDK = 'sget v0, Landroid/os/Build$VERSION;.SDK_INT:I // field@0008';
const NEW = (at: string): string[] => [
  `${at}: new-instance v2, Landroid/app/NotificationChannel; // type@000c`,
  `${at.replace(/.$/, (d) => (parseInt(d, 16) + 2).toString(16))}: invoke-direct {v2}, Landroid/app/NotificationChannel;.<init>:()V // method@001f`,
];
/** A compat class whose methods each make (or guard) an API 26 reference in one of javac's shapes. */
const guarded = (methods: Record<string, string[]>, catches: VectorMethod['catches'] = []): DexClass[] =>
  parseDexdump(dexdumpText({ name: 'dev/voicegateway/app/compat/Probe', methods: Object.entries(methods).map(([name, code]) => ({ name, type: '()V', code, catches })) }));
const withException = platform({
  'java/lang/UnsupportedOperationException': { name: 'java/lang/UnsupportedOperationException', superName: 'java/lang/Object', interfaces: [], access: 1, fields: [], methods: [{ name: '<init>', descriptor: '()V', access: 1 }] },
});
const level26: LevelOf = (ref) => (ref.owner === 'android/app/NotificationChannel' ? 26 : undefined);
const guards = (classes: DexClass[], levelOf?: LevelOf): string[] =>
  checkSdkGuards(classes, withException, { api: 23, compat: (n) => n.includes('/compat/'), ...(levelOf ? { levelOf } : {}) });

describe('SDK_INT guards in compat', () => {
  it('reads branch targets, try ranges and handlers from dexdump', () => {
    const [probe] = guarded({ m: [`0000: ${SDK}`, '0002: if-lt v0, v1, 0015 // +0013', '0004: goto 0000 // -0004', '0005: goto/32 #fffffffb', '0008: return-void'] }, [
      { range: '0x0000 - 0x0004', handlers: ['Ljava/io/IOException; -> 0x0008', '<any> -> 0x0005'] },
    ]);
    const code = probe!.code![0]!;
    expect(code.instructions.map((i) => [i.offset, i.op, i.relative])).toEqual([
      [0, 'sget', undefined],
      [2, 'if-lt', 0x13],
      [4, 'goto', -4],
      [5, 'goto/32', -5],
      [8, 'return-void', undefined],
    ]);
    expect(code.instructions[0]!.reference).toMatchObject({ owner: 'android/os/Build$VERSION', name: 'SDK_INT' });
    expect(code.tries).toEqual([{ start: 0, end: 4, handlers: [8, 5], types: ['java/io/IOException'] }]);
  });

  it('passes an early return or throw when SDK_INT < 26, an if around the call, and the constant written first', () => {
    const classes = guarded({
      earlyReturn: [`0000: ${SDK}`, '0002: const/16 v1, #int 26 // #1a', '0004: if-ge v0, v1, 0007 // +0003', '0006: return-void', ...NEW('0007'), '000c: return-void'],
      earlyThrow: [
        `0000: ${SDK}`,
        '0002: const/16 v1, #int 26 // #1a',
        '0004: if-ge v0, v1, 000c // +0008',
        '0006: new-instance v0, Ljava/lang/UnsupportedOperationException; // type@0010',
        '0008: invoke-direct {v0}, Ljava/lang/UnsupportedOperationException;.<init>:()V // method@0030',
        '000b: throw v0',
        ...NEW('000c'),
        '0011: return-void',
      ],
      ifElse: [`0000: ${SDK}`, '0002: const/16 v1, #int 26 // #1a', '0004: if-lt v0, v1, 000c // +0008', ...NEW('0006'), '000b: return-void', '000c: const/4 v0, #int 0 // #0', '000d: return-void'],
      constantFirst: [`0000: ${SDK}`, '0002: const/16 v1, #int 25 // #19', '0004: if-le v0, v1, 000b // +0007', ...NEW('0006'), '000b: return-void'],
      copied: [`0000: ${SDK}`, '0002: move v3, v0', '0003: const/16 v1, #int 29 // #1d', '0005: if-lt v3, v1, 000b // +0006', ...NEW('0007'), '000b: return-void'],
    });
    expect(guards(classes, level26)).toEqual([]);
    const levels = provenSdkLevels(classes[0]!.code!.find((m) => m.name === 'earlyReturn')!);
    expect([...levels]).toEqual([[0, 0], [2, 0], [4, 0], [6, 0], [7, 26], [9, 26], [0xc, 26]]);
  });

  it('fails a reference with no guard, the wrong direction, a guard too low for its level, and a join with an unguarded path', () => {
    const classes = guarded({
      none: [...NEW('0000'), '0005: return-void'],
      wrongWay: [`0000: ${SDK}`, '0002: const/16 v1, #int 26 // #1a', '0004: if-ge v0, v1, 000b // +0007', ...NEW('0006'), '000b: return-void'],
      tooLow: [`0000: ${SDK}`, '0002: const/16 v1, #int 24 // #18', '0004: if-lt v0, v1, 000b // +0007', ...NEW('0006'), '000b: return-void'],
      joined: [`0000: ${SDK}`, '0002: const/16 v1, #int 26 // #1a', '0004: if-lt v0, v1, 0007 // +0003', '0006: nop', ...NEW('0007'), '000c: return-void'],
      overwritten: [`0000: ${SDK}`, '0002: invoke-static {}, Ljava/lang/String;.valueOf:(I)Ljava/lang/String; // method@0001', '0005: move-result v0', '0006: const/16 v1, #int 26 // #1a', '0008: if-lt v0, v1, 000f // +0007', ...NEW('000a'), '000f: return-void'],
    });
    const at = (m: string): string => `dev.voicegateway.app.compat.Probe.${m}()V`;
    const unguarded = (m: string, ref: string): string => `${at(m)}: ${ref} (API 26) is not behind a Build.VERSION.SDK_INT >= 26 guard`;
    expect(guards(classes, level26)).toEqual([
      unguarded('none', 'class android.app.NotificationChannel'),
      unguarded('none', 'method android.app.NotificationChannel.<init>()V'),
      unguarded('wrongWay', 'class android.app.NotificationChannel'),
      unguarded('wrongWay', 'method android.app.NotificationChannel.<init>()V'),
      `${at('tooLow')}: class android.app.NotificationChannel needs API 26 but runs where only SDK_INT >= 24 is proven`,
      `${at('tooLow')}: method android.app.NotificationChannel.<init>()V needs API 26 but runs where only SDK_INT >= 24 is proven`,
      unguarded('joined', 'class android.app.NotificationChannel'),
      unguarded('joined', 'method android.app.NotificationChannel.<init>()V'),
      unguarded('overwritten', 'class android.app.NotificationChannel'),
      unguarded('overwritten', 'method android.app.NotificationChannel.<init>()V'),
    ]);
    // Without a stated level the rule is 24: the guard of 24 is then enough.
    expect(guards(classes).filter((p) => p.includes('tooLow'))).toEqual([]);
    // Outside compat, the API level check reports them instead; this one leaves them alone.
    expect(checkSdkGuards(classes, platform(), { api: 23, compat: () => false })).toEqual([]);
  });

  it('follows a catch handler from its try range, and a switch to anywhere', () => {
    const handler = guarded(
      { caught: [`0000: ${SDK}`, '0002: const/16 v1, #int 26 // #1a', '0004: if-lt v0, v1, 0010 // +000c', '0006: invoke-static {v0}, Ljava/lang/String;.valueOf:(I)Ljava/lang/String; // method@0001', '0009: return-void', '000a: move-exception v0', ...NEW('000b'), '0010: return-void'] },
      [{ range: '0x0006 - 0x0009', handlers: ['<any> -> 0x000a'] }],
    );
    expect(guards(handler, level26)).toEqual([]);
    const unguardedRange = guarded({ caught: ['0000: invoke-static {}, Ljava/lang/String;.valueOf:(I)Ljava/lang/String; // method@0001', '0003: return-void', '0004: move-exception v0', ...NEW('0005'), '000a: return-void'] }, [
      { range: '0x0000 - 0x0003', handlers: ['<any> -> 0x0004'] },
    ]);
    expect(guards(unguardedRange, level26)).toHaveLength(2);
    const switched = guarded({ s: [`0000: ${SDK}`, '0002: const/16 v1, #int 26 // #1a', '0004: if-ge v0, v1, 000a // +0006', '0006: packed-switch v0, 00000010 // +0000000a', '0009: return-void', ...NEW('000a'), '000f: return-void'] });
    expect(guards(switched, level26)).toHaveLength(2);
  });
});

describe('stub API levels', () => {
  it('reads a class level and member levels from the stubs\' javadoc, nested classes included', () => {
    const levels = stubLevels(`package android.app;
/**
 * Compile-only stub (never packaged). From the excerpts (34/public/api/android.txt):
 *   public class Notification implements android.os.Parcelable
 *   public static class Notification.Builder
 *     ctor public Notification.Builder(android.content.Context, String);   (API 26)
 *     method @NonNull public android.app.Notification.Builder setChannelId(@NonNull String);   (API 26)
 *   field public static final int VISIBILITY_PUBLIC = 1; // 0x1   (API 21; repeated)
 */
public class Notification {}
`);
    stubLevels(`package android.app.role;
/**
 * Compile-only stub (never packaged). API 29. From the excerpts:
 *   public final class RoleManager
 */
public final class RoleManager {}
`, levels);
    const of = levelOf(levels);
    expect(of({ kind: 'method', owner: 'android/app/Notification$Builder', name: '<init>', descriptor: '(Landroid/content/Context;Ljava/lang/String;)V', via: 'invoke-direct' })).toBe(26);
    expect(of({ kind: 'method', owner: 'android/app/Notification$Builder', name: '<init>', descriptor: '(Landroid/content/Context;)V', via: 'invoke-direct' })).toBeUndefined();
    expect(of({ kind: 'method', owner: 'android/app/Notification$Builder', name: 'setChannelId', descriptor: '(Ljava/lang/String;)Landroid/app/Notification$Builder;', via: 'invoke-virtual' })).toBe(26);
    expect(of({ kind: 'class', owner: 'android/app/role/RoleManager', via: 'const-class' })).toBe(29);
    expect(of({ kind: 'method', owner: 'android/app/role/RoleManager', name: 'isRoleHeld', descriptor: '(Ljava/lang/String;)Z', via: 'invoke-virtual' })).toBe(29);
    expect(parameterCount('(Ljava/lang/String;[IJ[[Landroid/os/Bundle;)V')).toBe(4);
  });
});

const CALL_TYPE = '(Ljava/lang/String;Ljava/lang/String;Landroid/os/Bundle;)Landroid/os/Bundle;';
const UID = '0000: invoke-static {}, Landroid/os/Binder;.getCallingUid:()I // method@0010';
const REQUIRE = (reg: string): string => `invoke-static {${reg}}, Ldev/voicegateway/core/helper/PeerPolicy;.requireShell:(I)V // method@0020`;
const providerClass = (call: string[], others: VectorMethod[] = []): DexClass[] =>
  parseDexdump(dexdumpText({ name: 'dev/voicegateway/app/helper/HelperProvider', superName: 'android/content/ContentProvider', methods: [{ name: 'call', type: CALL_TYPE, code: call }, ...others] }));
const NULL_QUERY: VectorMethod = {
  name: 'query',
  type: '(Landroid/net/Uri;[Ljava/lang/String;Ljava/lang/String;[Ljava/lang/String;Ljava/lang/String;)Landroid/database/Cursor;',
  code: ['0000: const/4 v0, #int 0 // #0', '0001: return-object v0'],
};

describe('the helper channel: no local socket, HelperProvider.call guarded', () => {
  it('names each class that uses LocalServerSocket, LocalSocket or LocalSocketAddress', () => {
    const [local] = parseDexdump(
      dexdumpText({
        name: 'dev/voicegateway/app/helper/LocalSockets',
        methods: [{ name: 'open', type: '()V', code: ['0000: new-instance v0, Landroid/net/LocalServerSocket; // type@0035', '0002: sget-object v1, Landroid/net/LocalSocketAddress$Namespace;.ABSTRACT:Landroid/net/LocalSocketAddress$Namespace; // field@0001', '0004: return-void'] }],
      }),
    );
    expect(checkNoLocalSockets([...sample(), local!]).problems).toEqual([
      'dev.voicegateway.app.helper.LocalSockets uses android.net.LocalServerSocket, android.net.LocalSocketAddress$Namespace: the app↔helper channel is Binder (HelperProvider.call and a socketpair passed as a ParcelFileDescriptor), never a local socket',
    ]);
    expect(checkNoLocalSockets(sample()).problems).toEqual([]);
  });

  it('passes a call that hands Binder.getCallingUid() to PeerPolicy.requireShell first, and entry points that return null', () => {
    const good = providerClass([UID, '0003: move-result v0', `0004: ${REQUIRE('v0')}`, '0007: const/4 v0, #int 0 // #0', '0008: return-object v0'], [NULL_QUERY]);
    expect(checkHelperProviderCode(good).problems).toEqual([]);
  });

  it('fails a provider that is missing, a call without the guard or with a branch before it, and an entry point that reads its arguments', () => {
    const name = 'dev.voicegateway.app.helper.HelperProvider';
    expect(checkHelperProviderCode(sample()).problems).toEqual([`${name} is not in the dex`]);
    const fail = (call: string[], others: VectorMethod[] = []): string[] => checkHelperProviderCode(providerClass(call, others)).problems;
    expect(fail(['0000: const/4 v0, #int 0 // #0', '0001: return-object v0'])).toEqual([`${name}.call${CALL_TYPE} does not begin with Binder.getCallingUid()`]);
    expect(fail([UID, '0003: move-result v0', '0004: if-nez v1, 0009 // +0005', `0006: ${REQUIRE('v0')}`, '0009: return-object v1'])).toEqual([
      `${name}.call${CALL_TYPE} branches or returns before PeerPolicy.requireShell(Binder.getCallingUid())`,
    ]);
    expect(fail([UID, '0003: move-result v0', `0004: ${REQUIRE('v2')}`, '0007: return-object v1'])).toEqual([`${name}.call${CALL_TYPE} calls something else before PeerPolicy.requireShell(Binder.getCallingUid())`]);
    const readsUri: VectorMethod = { ...NULL_QUERY, code: ['0000: invoke-virtual {v1}, Landroid/net/Uri;.getPath:()Ljava/lang/String; // method@0030', '0003: const/4 v0, #int 0 // #0', '0004: return-object v0'] };
    expect(fail([UID, '0003: move-result v0', `0004: ${REQUIRE('v0')}`, '0007: return-object v1'], [readsUri])).toEqual([
      `${name}.query${NULL_QUERY.type} does something with the caller's data: return null or 0, or call PeerPolicy.requireShell(Binder.getCallingUid()) first`,
    ]);
  });
});
