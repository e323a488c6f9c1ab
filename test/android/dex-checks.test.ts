import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { checkNoInvokeCustom, checkNoPlatformClasses } from '../../scripts/android/apk-checks.js';
import { checkApiLevel, formatViolation, type ClassPath } from '../../scripts/android/api-level.js';
import { ACC_INTERFACE, type ClassFile } from '../../scripts/android/classfile.js';
import { parseDexdump, type DexClass } from '../../scripts/android/dexdump.js';

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
