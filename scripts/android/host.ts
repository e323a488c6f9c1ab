/**
 * The app's core on the host JVM: compiles android/core (with exactly the APK's flags: Java 8,
 * android.jar 23 as the boot class path), the host runner android/jvm and the JUnit tests
 * android/core/test into android/build/host/, skipping what is up to date.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const ANDROID = path.join(ROOT, 'android');
const OUT = path.join(ANDROID, 'build/host');

/** Where the Debian packages of the toolchain were unpacked (dpkg -x). */
export function toolchainRoot(): string {
  return process.env['VG_ANDROID_TOOLCHAIN'] ?? path.join(ANDROID, '.toolchain/root');
}

export interface HostJars {
  androidJar: string;
  json: string;
  junit: string;
  hamcrest: string;
}

/** Why the JVM tests cannot run here, or null when they can. */
export function javaMissing(): string | null {
  const javac = spawnSync('javac', ['-version'], { encoding: 'utf8' });
  if (javac.error || javac.status !== 0) return 'no JDK (javac) on this machine; install one, e.g. apt-get install openjdk-17-jdk-headless';
  return null;
}

export function hostJars(): HostJars {
  const root = toolchainRoot();
  const java = path.join(root, 'usr/share/java');
  const jars: HostJars = {
    androidJar: path.join(root, 'usr/lib/android-sdk/platforms/android-23/android.jar'),
    json: path.join(java, 'com.android.json.jar'),
    junit: path.join(java, 'junit4.jar'),
    hamcrest: path.join(java, 'hamcrest.jar'),
  };
  for (const [name, file] of Object.entries(jars)) {
    if (!existsSync(file)) throw new Error(`the Android toolchain lacks ${name} (${file}); run npm run build:android once to fetch it`);
  }
  return { ...jars, androidJar: realpathSync(jars.androidJar) };
}

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
function compile(name: string, sources: string[], dest: string, flags: string[]): void {
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
    const result = spawnSync('javac', [...flags, '-encoding', 'UTF-8', '-d', fresh, ...sources], { encoding: 'utf8' });
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
  jars: HostJars;
  /** Class path of `npm run phone:jvm`. */
  runtime: string[];
  /** Class path of the JUnit run. */
  testRuntime: string[];
}

export function compileHost(): HostBuild {
  const jars = hostJars();
  mkdirSync(OUT, { recursive: true });
  const core = path.join(OUT, 'core');
  const jvm = path.join(OUT, 'jvm');
  const tests = path.join(OUT, 'tests');
  // The very flags of the APK's build: Java 8 source and target, API 23 as the whole platform.
  compile('core', javaFiles(path.join(ANDROID, 'core/src')), core, ['-source', '8', '-target', '8', '-Xlint:-options', '-bootclasspath', jars.androidJar]);
  compile('jvm', javaFiles(path.join(ANDROID, 'jvm/src')), jvm, ['--release', '8', '-Xlint:-options', '-cp', [core, jars.json].join(':')]);
  compile('tests', [...javaFiles(path.join(ANDROID, 'core/test')), ...javaFiles(path.join(ANDROID, 'jvm/test'))], tests, ['--release', '8', '-Xlint:-options', '-cp', [core, jvm, jars.json, jars.junit, jars.hamcrest].join(':')]);
  return {
    core,
    jvm,
    tests,
    jars,
    runtime: [core, jvm, jars.json],
    testRuntime: [core, jvm, tests, jars.json, jars.junit, jars.hamcrest],
  };
}

/** The JUnit test classes: every *Test.java under android/core/test and android/jvm/test. */
export function junitClasses(): string[] {
  return ['core/test', 'jvm/test'].flatMap((sub) => {
    const dir = path.join(ANDROID, sub);
    return javaFiles(dir)
      .filter((f) => f.endsWith('Test.java'))
      .map((f) => path.relative(dir, f).replace(/\.java$/, '').split(path.sep).join('.'));
  });
}

export function newest(dir: string): number {
  if (!existsSync(dir)) return 0;
  const s = statSync(dir);
  if (!s.isDirectory()) return s.mtimeMs;
  return readdirSync(dir).reduce((m, n) => Math.max(m, newest(path.join(dir, n))), s.mtimeMs);
}
