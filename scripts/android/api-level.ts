import { readFileSync } from 'node:fs';
import { readClassFile, type ClassFile } from './classfile.js';
import type { DexClass, DexReference } from './dexdump.js';
import { ZipArchive } from './zip.js';

/** Classes the platform provides, by internal name. */
export interface ClassPath {
  lookup(name: string): ClassFile | undefined;
}

/** A class path over jars (android.jar), each class read only when it is first asked for. */
export class JarClassPath implements ClassPath {
  private readonly jars: ZipArchive[];
  private readonly cache = new Map<string, ClassFile | undefined>();

  constructor(jarPaths: readonly string[]) {
    this.jars = jarPaths.map((p) => new ZipArchive(readFileSync(p)));
  }

  lookup(name: string): ClassFile | undefined {
    if (!this.cache.has(name)) {
      const bytes = this.jars.map((jar) => jar.read(`${name}.class`)).find(Boolean);
      this.cache.set(name, bytes ? readClassFile(bytes) : undefined);
    }
    return this.cache.get(name);
  }
}

/** One reference that the platform of the API level does not have, and the class that makes it. */
export interface ApiViolation {
  /** The class whose code makes the reference, dotted (`dev.voicegateway.app.ui.StatusActivity`). */
  from: string;
  /** The reference, readable: `method android.app.Notification$Builder.setChannelId(Ljava/lang/String;)…`. */
  reference: string;
  problem: string;
}

export const formatViolation = (v: ApiViolation): string => `${v.from}: ${v.reference} (${v.problem})`;

interface TypeInfo {
  /** An interface's is java/lang/Object (in class files and in dex), so Object's methods resolve on it. */
  superName: string | undefined;
  interfaces: readonly string[];
  declares(kind: 'method' | 'field', name: string, descriptor: string): boolean;
}

export const dotted = (name: string): string => name.replace(/\//g, '.');

/** A reference, readable: `method android.app.NotificationChannel.<init>(…)V`, `field …:I`, `class …`. */
export const describeReference = (ref: DexReference): string =>
  ref.kind === 'class' ? `class ${dotted(ref.owner)}` : `${ref.kind} ${dotted(ref.owner)}.${ref.name}${ref.kind === 'method' ? ref.descriptor : `:${ref.descriptor}`}`;

/**
 * Resolves a reference, through superclasses and interfaces as the VM resolves it, to a class in
 * the dex itself or to the platform's class path: undefined when it resolves, else the problem
 * (`not in API 23`, `class android.app.NotificationChannel is not in API 23`).
 */
export function platformResolver(classes: readonly DexClass[], platform: ClassPath, api: number): (ref: DexReference) => string | undefined {
  const own = new Map(classes.map((c) => [c.name, c]));
  const notInApi = `not in API ${api}`;

  const typeInfo = (name: string): TypeInfo | undefined => {
    const dex = own.get(name);
    if (dex) {
      return {
        superName: dex.superName,
        interfaces: dex.interfaces,
        declares: (kind, member, descriptor) => (kind === 'method' ? dex.methods : dex.fields).some((m) => m.name === member && m.descriptor === descriptor),
      };
    }
    const file = platform.lookup(name);
    if (!file) return undefined;
    return {
      superName: file.superName,
      interfaces: file.interfaces,
      declares: (kind, member, descriptor) => (kind === 'method' ? file.methods : file.fields).some((m) => m.name === member && m.descriptor === descriptor),
    };
  };

  return (ref) => {
    if (ref.owner.startsWith('[')) {
      // Arrays have only Object's members (clone, length is an instruction), and an element type.
      const element = ref.owner.replace(/^\[+/, '');
      if (element.startsWith('L') && !typeInfo(element.slice(1, -1))) return `class ${dotted(element.slice(1, -1))} is ${notInApi}`;
      return undefined;
    }
    if (ref.kind === 'class') return typeInfo(ref.owner) ? undefined : notInApi;
    const queue = [ref.owner];
    const seen = new Set<string>();
    let missing: string | undefined;
    while (queue.length) {
      const name = queue.shift()!;
      if (seen.has(name)) continue;
      seen.add(name);
      const info = typeInfo(name);
      if (!info) {
        missing ??= name;
        continue;
      }
      if (info.declares(ref.kind as 'method' | 'field', ref.name!, ref.descriptor!)) return undefined;
      if (info.superName) queue.push(info.superName);
      queue.push(...info.interfaces);
    }
    return missing ? `class ${dotted(missing)} is ${notInApi}` : notInApi;
  };
}

/**
 * Every method, field and class that the dex's code refers to must resolve (see platformResolver)
 * in the dex itself or in android.jar of API 23 (read with our own class-file reader). The
 * references made by classes that `exempt` accepts (the compat classes) are not checked here:
 * they are the only place newer APIs may be used, each behind a Build.VERSION.SDK_INT guard
 * (sdk-guards.ts checks that). `allowed` names references (as `ApiViolation.reference` spells
 * them) known to be safe anyway.
 */
export function checkApiLevel(
  classes: readonly DexClass[],
  platform: ClassPath,
  options: { api: number; exempt: (className: string) => boolean; allowed?: ReadonlySet<string> },
): ApiViolation[] {
  const resolve = platformResolver(classes, platform, options.api);
  const violations: ApiViolation[] = [];
  const reported = new Set<string>();
  for (const cls of classes) {
    if (options.exempt(cls.name)) continue;
    const hierarchy: DexReference[] = [cls.superName, ...cls.interfaces].filter((n): n is string => Boolean(n)).map((owner) => ({ kind: 'class', owner, via: 'extends' }));
    for (const ref of [...hierarchy, ...cls.references]) {
      const reference = describeReference(ref);
      const key = `${cls.name} ${reference}`;
      if (reported.has(key) || options.allowed?.has(reference)) continue;
      const problem = resolve(ref);
      if (problem) {
        reported.add(key);
        violations.push({ from: dotted(cls.name), reference, problem });
      }
    }
  }
  return violations;
}
