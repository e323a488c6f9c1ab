/**
 * The app's core on the host JVM: compiles android/core (with exactly the APK's flags: Java 8,
 * android.jar 23 as the boot class path), the host runner android/jvm and the JUnit tests
 * android/core/test into android/build/host/, skipping what is up to date.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ANDROID_DIR } from './paths.js';
import type { Toolchain } from './toolchain.js';

const OUT = path.join(ANDROID_DIR, 'build/host');

function javaFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...javaFiles(p));
    else if (entry.name.endsWith('.java')) out.push(p);
  }
  return out.sort();
}

/** Compiles `sources` into `dest` unless the same sources and flags compiled there already. */
function compile(javac: string, name: string, sources: string[], dest: string, flags: string[]): void {
  const hash = createHash('sha256').update(JSON.stringify(flags));
  for (const f of sources) hash.update(f).update(readFileSync(f));
  const stamp = path.join(OUT, `${name}.stamp`);
  const digest = hash.digest('hex');
  if (existsSync(stamp) && existsSync(dest) && readFileSync(stamp, 'utf8') === digest) return;
  // Compiled beside the destination and renamed into place, so a reader never sees half a build.
  const fresh = `${dest}.${process.pid}.tmp`;
  rmSync(fresh, { recursive: true, force: true });
  mkdirSync(fresh, { recursive: true });
  if (sources.length > 0) {
    const result = spawnSync(javac, [...flags, '-encoding', 'UTF-8', '-d', fresh, ...sources], { encoding: 'utf8' });
    if (result.status !== 0) {
      rmSync(fresh, { recursive: true, force: true });
      throw new Error(`javac (${name}) failed:\n${result.stdout}${result.stderr}`);
    }
  }
  rmSync(dest, { recursive: true, force: true });
  renameSync(fresh, dest);
  writeFileSync(stamp, digest);
}

export interface HostBuild {
  core: string;
  jvm: string;
  tests: string;
  /** Class path of `npm run phone:jvm`. */
  runtime: string[];
  /** Class path of the JUnit run. */
  testRuntime: string[];
}

/** Compiles what changed; `javac` is the JDK's (jdk.ts), the jars come from the toolchain. */
export function compileHost(tc: Toolchain, javac = 'javac'): HostBuild {
  const jars = { androidJar: tc.androidJar, json: tc.jars.json, junit: tc.jars.junit, hamcrest: tc.jars.hamcrest, bc: tc.jars.bouncyCastle };
  mkdirSync(OUT, { recursive: true });
  const core = path.join(OUT, 'core');
  const jvm = path.join(OUT, 'jvm');
  const tests = path.join(OUT, 'tests');
  // The very flags of the APK's build: Java 8 source and target, API 23 as the whole platform.
  compile(javac, 'core', javaFiles(path.join(ANDROID_DIR, 'core/src')), core, ['-source', '8', '-target', '8', '-Xlint:-options', '-bootclasspath', jars.androidJar]);
  // BouncyCastle's TLS serves the host runner only (the TLS exporter ADB pairing needs); the APK never has it.
  compile(javac, 'jvm', javaFiles(path.join(ANDROID_DIR, 'jvm/src')), jvm, ['--release', '8', '-Xlint:-options', '-cp', [core, jars.json, ...jars.bc].join(':')]);
  compile(javac, 'tests', [...javaFiles(path.join(ANDROID_DIR, 'core/test')), ...javaFiles(path.join(ANDROID_DIR, 'jvm/test'))], tests, ['--release', '8', '-Xlint:-options', '-cp', [core, jvm, jars.json, ...jars.bc, jars.junit, jars.hamcrest].join(':')]);
  return {
    core,
    jvm,
    tests,
    runtime: [core, jvm, jars.json, ...jars.bc],
    testRuntime: [core, jvm, tests, jars.json, ...jars.bc, jars.junit, jars.hamcrest],
  };
}

/** The JUnit test classes: every *Test.java under android/core/test and android/jvm/test. */
export function junitClasses(): string[] {
  return ['core/test', 'jvm/test'].flatMap((sub) => {
    const dir = path.join(ANDROID_DIR, sub);
    return javaFiles(dir)
      .filter((f) => f.endsWith('Test.java'))
      .map((f) => path.relative(dir, f).replace(/\.java$/, '').split(path.sep).join('.'));
  });
}
