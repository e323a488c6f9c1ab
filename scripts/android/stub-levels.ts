import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { DexReference } from './dexdump.js';
import type { LevelOf } from './sdk-guards.js';

/**
 * The API levels the compile-only stubs (android/app/stubs) state in their javadoc, for the
 * SDK_INT guard check: a whole class (`Compile-only stub (never packaged). API 26.`, which covers
 * its nested classes too) or one quoted member (`method public … getCallDirection();   (API 29)`).
 * android.jar carries no API levels and the toolchain has no api-versions.xml, so these notes (each
 * taken from the excerpts of API 34's android.txt with their appearance notes) are the only source;
 * a reference they do not cover is held to the rule's API 24.
 */

/** Number of parameters in a JVM method descriptor: `(Ljava/lang/String;[II)V` -> 3. */
export function parameterCount(descriptor: string): number {
  const inner = /^\(([^)]*)\)/.exec(descriptor)?.[1] ?? '';
  return inner.match(/\[*(L[^;]+;|[BCDFIJSZ])/g)?.length ?? 0;
}

/** `a.b`, `Outer.Inner` -> `a/b/Outer$Inner`. */
const ownerName = (pkg: string, dottedClass: string): string => `${pkg.replace(/\./g, '/')}/${dottedClass.replace(/\./g, '$')}`;

export interface StubLevels {
  /** Internal class name (top-level; nested classes share it) -> level. */
  classes: Map<string, number>;
  /** `owner.name/parameterCount` for methods and constructors (`<init>`), `owner.name` for fields -> level. */
  members: Map<string, number>;
}

/** The levels one stub's source states. */
export function stubLevels(javaSource: string, into: StubLevels = { classes: new Map(), members: new Map() }): StubLevels {
  const pkg = /^package\s+([\w.]+);/m.exec(javaSource)?.[1] ?? '';
  const top = /^public\s+(?:(?:abstract|final)\s+)*(?:class|interface)\s+(\w+)/m.exec(javaSource)?.[1];
  if (!top) return into;
  const doc = /\/\*\*([\s\S]*?)\*\//.exec(javaSource)?.[1] ?? '';
  const whole = /Compile-only stub \(never packaged\)[.,]\s*API (\d+)/.exec(doc);
  if (whole) into.classes.set(ownerName(pkg, top), Number(whole[1]));
  let owner = ownerName(pkg, top);
  for (const raw of doc.split('\n')) {
    const line = raw.replace(/^\s*\*\s?/, '').trim();
    const header = /^(?:public|protected)\s+(?:(?:static|final|abstract)\s+)*(?:class|interface)\s+([\w.]+)/.exec(line);
    if (header) {
      owner = ownerName(pkg, header[1]!);
      continue;
    }
    const member = /^(ctor|method|field)\s+(.*?)\s*\(API (\d+)[;)]/.exec(line);
    if (!member) continue;
    const [, kind, declaration, level] = member;
    const text = declaration!.replace(/@[\w.]+(\([^)]*\))?\s*/g, '');
    if (kind === 'field') {
      const name = /(\w+)\s*(=|;)/.exec(text)?.[1];
      if (name) into.members.set(`${owner}.${name}`, Number(level));
      continue;
    }
    const call = /([\w.]+)\s*\(([^)]*)\)/.exec(text);
    if (!call) continue;
    const count = call[2]!.trim() ? call[2]!.split(',').length : 0;
    // A constructor is written with its class's name, `Notification.Builder(…)`.
    const key = kind === 'ctor' ? `${ownerName(pkg, call[1]!)}.<init>/${count}` : `${owner}.${call[1]!}/${count}`;
    into.members.set(key, Number(level));
  }
  return into;
}

/** The levels every stub below `stubsDir` states, as a LevelOf for checkSdkGuards. */
export function stubLevelsOf(stubsDir: string): LevelOf {
  const levels: StubLevels = { classes: new Map(), members: new Map() };
  if (existsSync(stubsDir)) {
    for (const file of readdirSync(stubsDir, { recursive: true }).map(String)) {
      if (file.endsWith('.java')) stubLevels(readFileSync(path.join(stubsDir, file), 'utf8'), levels);
    }
  }
  return levelOf(levels);
}

export function levelOf(levels: StubLevels): LevelOf {
  return (ref: DexReference) => {
    const found: number[] = [];
    const outer = ref.owner.split('$')[0]!;
    for (const owner of new Set([ref.owner, outer])) {
      const whole = levels.classes.get(owner);
      if (whole !== undefined) found.push(whole);
    }
    if (ref.kind === 'method') {
      const member = levels.members.get(`${ref.owner}.${ref.name}/${parameterCount(ref.descriptor!)}`);
      if (member !== undefined) found.push(member);
    } else if (ref.kind === 'field') {
      const member = levels.members.get(`${ref.owner}.${ref.name}`);
      if (member !== undefined) found.push(member);
    }
    return found.length ? Math.max(...found) : undefined;
  };
}
