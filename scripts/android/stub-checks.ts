import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runOk } from './exec.js';
import type { Jdk } from './jdk.js';
import type { CheckResult } from './manifest-checks.js';

/**
 * The compile-only stubs (android/app/stubs) stand in for API 24–34 classes that android.jar 23 does
 * not have. A member invented in a stub would compile and then fail on a device, which nothing here
 * can run; so every stub quotes, in its javadoc, the signature lines of API 34's android.txt it was
 * written from, and this check holds the compiled stub to them: each public member must be quoted.
 * The quotes are held in turn to the published lines, kept as test data ({@link unpublishedQuotes}).
 */

/** A member as `kind name(parameter types)`, types written as android.txt writes them. */
export type MemberKey = string;

/** java.lang types unqualified, nested classes with a dot, no annotations, no parameter names. */
function normalizeType(type: string): string {
  return type
    .replace(/@[\w.]+(\([^)]*\))?\s*/g, '')
    .replace(/\$/g, '.')
    .replace(/\bjava\.lang\.(?=[A-Z])/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}

function params(list: string): string {
  const inner = list.trim();
  if (!inner) return '';
  // Generic arguments hold no commas in the stubs' signatures (Class<T>), so a plain split is enough.
  return inner.split(',').map(normalizeType).join(', ');
}

/** The key of one declaration, from android.txt's or javap's wording; null for anything else. */
function keyOf(kind: 'ctor' | 'method' | 'field', declaration: string): MemberKey | null {
  const text = normalizeType(declaration.replace(/\s*=.*$/, '').replace(/;.*$/, ''));
  if (kind === 'field') {
    const name = /(\w+)$/.exec(text)?.[1];
    return name ? `field ${name}` : null;
  }
  const call = /([\w.$]+)\s*\(([^)]*)\)/.exec(text);
  if (!call) return null;
  // A constructor by its class's simple name (javap qualifies it, android.txt writes Outer.Inner).
  const name = call[1]!.split('.').pop()!;
  return `${kind} ${name}(${params(call[2]!)})`;
}

/**
 * The members a stub's javadoc quotes: lines `ctor …;`, `method …;` and `field …;` (android.txt's
 * signature format), under the class they belong to when the stub nests one (`Outer.Inner` blocks).
 */
export function quotedMembers(javaSource: string): Set<MemberKey> {
  const doc = /\/\*\*([\s\S]*?)\*\//.exec(javaSource)?.[1] ?? '';
  const keys = new Set<MemberKey>();
  for (const raw of doc.split('\n')) {
    const line = raw.replace(/^\s*\*\s?/, '').trim();
    const m = /^(ctor|method|field)\s+(?:\.\.\.\s+)?(.*)$/.exec(line);
    if (!m) continue;
    const key = keyOf(m[1] as 'ctor' | 'method' | 'field', m[2]!);
    if (key) keys.add(key);
  }
  return keys;
}

/** The public members `javap -public` prints for one class (its own, not inherited ones). */
export function compiledMembers(javapOutput: string): Set<MemberKey> {
  const keys = new Set<MemberKey>();
  for (const raw of javapOutput.split('\n')) {
    const line = raw.trim();
    if (!line.startsWith('public ') || !line.endsWith(';')) continue;
    const declaration = line.replace(/\s+throws\s+[^;]+/, '');
    const kind = memberKind(declaration);
    const key = keyOf(kind, declaration);
    if (key) keys.add(key);
  }
  return keys;
}

const MODIFIERS = /^(?:(?:public|protected|static|final|abstract|synchronized|native|transient|volatile|default)\s+)*/;

/** A field has no parameter list; a constructor has no return type before its (qualified) name. */
function memberKind(declaration: string): 'ctor' | 'method' | 'field' {
  const open = declaration.indexOf('(');
  if (open < 0) return 'field';
  const head = declaration.slice(0, open).replace(MODIFIERS, '').replace(/^<[^>]*>\s*/, '').trim();
  return head.split(/\s+/).length === 1 ? 'ctor' : 'method';
}

/** What a stub declares that its javadoc does not quote; empty when it keeps to its sources. */
export function stubProblems(stubName: string, javaSource: string, javapOutputs: readonly string[]): string[] {
  const quoted = quotedMembers(javaSource);
  const problems: string[] = [];
  for (const output of javapOutputs) {
    for (const member of compiledMembers(output)) {
      if (!quoted.has(member)) problems.push(`${stubName}: ${member} is declared but not quoted from API 34's android.txt`);
    }
  }
  return problems;
}

/**
 * Compiles the stubs (`sourcesDir`, android/app/stubs) as the build does, into a directory of their
 * own, and checks each against its javadoc with javap.
 */
export async function checkStubs(sourcesDir: string, androidJar: string, jdk: Jdk): Promise<CheckResult> {
  const problems: string[] = [];
  const sources = readdirSync(sourcesDir, { recursive: true }).map(String).filter((f) => f.endsWith('.java'));
  const classesDir = mkdtempSync(path.join(tmpdir(), 'vg-stubs-'));
  const javap = path.join(path.dirname(jdk.javac), 'javap');
  try {
    await runOk('javac stubs', jdk.javac, ['--release', '8', '-nowarn', '-encoding', 'UTF-8', '-cp', androidJar, '-d', classesDir, ...sources.map((f) => path.join(sourcesDir, f))]);
    for (const source of sources) {
      const base = source.replace(/\.java$/, '');
      const dir = path.join(classesDir, path.dirname(base));
      const simple = path.basename(base);
      // The class itself and its nested classes (Outer$Inner.class).
      const classFiles = readdirSync(dir)
        .filter((f) => f === `${simple}.class` || f.startsWith(`${simple}$`))
        .map((f) => path.join(dir, f));
      const printed = await runOk('javap', javap, ['-public', ...classFiles]);
      problems.push(...stubProblems(base.split(path.sep).join('.'), readFileSync(path.join(sourcesDir, source), 'utf8'), [printed.stdout]));
    }
  } finally {
    rmSync(classesDir, { recursive: true, force: true });
  }
  return { name: 'every stub member quoted from API 34', problems };
}

/**
 * The stubs' quotes held to the published text: each `ctor`/`method`/`field` line a stub's javadoc
 * quotes must be a line of API 34's android.txt, kept in the repository as test data
 * (test/android/fixtures/android-api-34-excerpts.txt, facts copied verbatim from the published
 * file). Compared up to the `;` (after it the stubs note the API level, the file a hex value). A
 * quote `field ... public …` stands for a line whose long annotations it leaves out: it matches a
 * published line of that kind ending the same way.
 */
export function unpublishedQuotes(stubName: string, javaSource: string, publishedText: string): string[] {
  const upToSemicolon = (line: string): string => line.replace(/;.*$/, ';').trim();
  const published = new Set<string>();
  for (const raw of publishedText.split('\n')) {
    const line = raw.trim();
    if (/^(ctor|method|field|enum_constant)\s/.test(line)) published.add(upToSemicolon(line));
  }
  const doc = /\/\*\*([\s\S]*?)\*\//.exec(javaSource)?.[1] ?? '';
  const problems: string[] = [];
  for (const raw of doc.split('\n')) {
    const line = raw.replace(/^\s*\*\s?/, '').trim();
    const m = /^(ctor|method|field)\s+(\.\.\.\s+)?(.*?;)/.exec(line);
    if (!m) continue;
    const [, kind, elided, rest] = m;
    const found = elided ? [...published].some((p) => p.startsWith(`${kind!} `) && p.endsWith(` ${rest!}`)) : published.has(`${kind!} ${rest!}`);
    if (!found) problems.push(`${stubName}: "${kind!} ${elided ? '... ' : ''}${rest!}" is not a line of API 34's android.txt`);
  }
  return problems;
}
