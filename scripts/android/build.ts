import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { AndroidToolError, runOk, withLock } from './exec.js';
import { findJdk, NO_JDK_MESSAGE, type Jdk } from './jdk.js';
import { ANDROID_DIR, MIN_SDK, packageVersion, REPO_ROOT, TARGET_SDK } from './paths.js';
import { apksignerKeyOptions, resolveSigningKey, type SigningKey } from './signing.js';
import { apksignerArgs, ensureToolchain, type Toolchain } from './toolchain.js';

export interface BuildOptions {
  /** The Android sources (core/, app/); android/ by default. */
  androidDir?: string;
  /** Where the APK and the intermediate files go; <androidDir>/build by default. */
  outDir?: string;
  /** versionName; package.json's version by default. */
  version?: string;
  toolchain?: Toolchain;
  signingKey?: SigningKey;
  /** Rebuild even when nothing changed. */
  force?: boolean;
  log?: (line: string) => void;
}

export interface BuildResult {
  apk: string;
  /** False when the APK was already built from the same inputs. */
  rebuilt: boolean;
  versionName: string;
  versionCode: number;
  signedWith: SigningKey['origin'];
  steps: Array<{ step: string; ms: number }>;
}

export const APK_NAME = 'voice-gateway.apk';

/**
 * versionCode from a semantic version: MAJOR * 1_000_000 + MINOR * 1_000 + PATCH, so that every
 * release installs over the one before it. A pre-release suffix (`-beta.1`) is left out.
 */
export function versionCode(version: string): number {
  const m = /^(\d+)\.(\d+)\.(\d+)(?:[-+].*)?$/.exec(version);
  if (!m) throw new AndroidToolError(`version ${JSON.stringify(version)} is not MAJOR.MINOR.PATCH`);
  const [major, minor, patch] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (minor > 999 || patch > 999 || major > 2099) throw new AndroidToolError(`version ${version} does not fit a versionCode (MINOR and PATCH at most 999)`);
  return Math.max(1, major * 1_000_000 + minor * 1_000 + patch);
}

/** Every file below `dir` (sorted, relative), or none when it does not exist. */
function filesUnder(dir: string, ext?: string): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  const walk = (rel: string): void => {
    for (const name of readdirSync(path.join(dir, rel)).sort()) {
      const child = path.join(rel, name);
      if (statSync(path.join(dir, child)).isDirectory()) walk(child);
      else if (!ext || name.endsWith(ext)) out.push(child);
    }
  };
  walk('');
  return out;
}

interface Sources {
  manifest: string;
  res: string;
  stubs: string[];
  compat: string[];
  /** core/src and app/src. */
  main: string[];
}

function sources(androidDir: string): Sources {
  const java = (sub: string): string[] => filesUnder(path.join(androidDir, sub), '.java').map((f) => path.join(androidDir, sub, f));
  const manifest = path.join(androidDir, 'app/AndroidManifest.xml');
  if (!existsSync(manifest)) throw new AndroidToolError(`${manifest} is missing`);
  return { manifest, res: path.join(androidDir, 'app/res'), stubs: java('app/stubs'), compat: java('app/compat'), main: [...java('core/src'), ...java('app/src')] };
}

/** A digest of everything the APK is made from; the build is skipped when it has not changed. */
function inputsDigest(androidDir: string, parts: string[]): string {
  const hash = createHash('sha256');
  for (const sub of ['app/AndroidManifest.xml', 'app/res', 'app/src', 'app/compat', 'app/stubs', 'core/src']) {
    const base = path.join(androidDir, sub);
    const files = existsSync(base) && statSync(base).isFile() ? [''] : filesUnder(base);
    for (const f of files) hash.update(`${sub}/${f}\0`).update(readFileSync(path.join(base, f))).update('\0');
  }
  // The build's own recipe is an input too.
  const scripts = path.join(REPO_ROOT, 'scripts/android');
  for (const f of filesUnder(scripts, '.ts')) hash.update(`scripts/${f}\0`).update(readFileSync(path.join(scripts, f)));
  for (const p of parts) hash.update(`${p}\0`);
  return hash.digest('hex');
}

/**
 * Builds the signed APK: aapt package (manifest + res against framework-res.apk) -> javac stubs ->
 * javac compat (against stubs + android.jar) -> javac core + app + R (against android.jar 23 only) ->
 * dx (core, app, compat; never the stubs), merged with zxing core's dex -> aapt add -> zipalign ->
 * apksigner (v2 + v3).
 */
export async function buildApk(options: BuildOptions = {}): Promise<BuildResult> {
  const jdk = findJdk();
  if (!jdk) throw new AndroidToolError(NO_JDK_MESSAGE);
  // Absolute: some steps run in another directory (aapt add names the entry after its path).
  const androidDir = path.resolve(options.androidDir ?? ANDROID_DIR);
  const outDir = path.resolve(options.outDir ?? path.join(androidDir, 'build'));
  const log = options.log ?? (() => {});
  const versionName = options.version ?? packageVersion();
  const code = versionCode(versionName);
  const tc = options.toolchain ?? (await ensureToolchain({ log }));
  const key = options.signingKey ?? (await resolveSigningKey(jdk.keytool));
  const apk = path.join(outDir, APK_NAME);
  const stampFile = `${apk}.stamp`;

  return withLock(path.join(outDir, '.lock'), async () => {
    const digest = inputsDigest(androidDir, [versionName, String(MIN_SDK), String(TARGET_SDK), tc.dir, key.keystore, key.alias ?? '', readFileSync(key.keystore).toString('base64')]);
    const result = { apk, versionName, versionCode: code, signedWith: key.origin, steps: [] as BuildResult['steps'] };
    if (!options.force && existsSync(apk) && existsSync(stampFile) && readFileSync(stampFile, 'utf8') === digest) return { ...result, rebuilt: false };

    const work = path.join(outDir, 'work');
    rmSync(work, { recursive: true, force: true });
    for (const d of ['gen', 'stubs', 'compat', 'classes', 'dex']) mkdirSync(path.join(work, d), { recursive: true });
    const step = async (name: string, fn: () => Promise<unknown>): Promise<void> => {
      const started = Date.now();
      await fn();
      result.steps.push({ step: name, ms: Date.now() - started });
      log(`${name} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
    };
    await compile(sources(androidDir), work, tc, jdk, versionName, code, step);
    await step('apksigner sign (v2 + v3)', async () => {
      const signing = apksignerKeyOptions(key);
      await runOk(
        'apksigner sign',
        jdk.java,
        apksignerArgs(tc, ['sign', ...signing.args, '--min-sdk-version', String(MIN_SDK), '--v1-signing-enabled', 'false', '--v2-signing-enabled', 'true', '--v3-signing-enabled', 'true', '--out', path.join(work, 'signed.apk'), path.join(work, 'aligned.apk')]),
        { env: signing.env },
      );
    });
    // Replaced in one step, so the gateway never serves a half-written file.
    renameSync(path.join(work, 'signed.apk'), apk);
    writeFileSync(stampFile, digest);
    return { ...result, rebuilt: true };
  });
}

type Step = (name: string, fn: () => Promise<unknown>) => Promise<void>;

async function compile(src: Sources, work: string, tc: Toolchain, jdk: Jdk, versionName: string, code: number, step: Step): Promise<void> {
  const javac8 = ['-source', '8', '-target', '8', '-encoding', 'UTF-8', '-Xlint:-options', '-nowarn'];
  const unaligned = path.join(work, 'unaligned.apk');
  await step('aapt package (manifest + resources)', () =>
    runOk('aapt package', tc.aapt, [
      'package', '-f', '-M', src.manifest, ...(existsSync(src.res) ? ['-S', src.res] : []), '-I', tc.frameworkRes,
      '--min-sdk-version', String(MIN_SDK), '--target-sdk-version', String(TARGET_SDK),
      '--version-code', String(code), '--version-name', versionName, '-J', path.join(work, 'gen'), '-F', unaligned,
    ], { env: tc.env }),
  );
  if (src.stubs.length) {
    // Compile-only: classes of API 24-34 that compat/ is compiled against; never dexed.
    await step(`javac stubs (${src.stubs.length} files)`, () => runOk('javac stubs', jdk.javac, ['--release', '8', '-nowarn', '-encoding', 'UTF-8', '-cp', tc.androidJar, '-d', path.join(work, 'stubs'), ...src.stubs]));
  }
  if (src.compat.length) {
    await step(`javac compat (${src.compat.length} files)`, () =>
      runOk('javac compat', jdk.javac, [...javac8, '-bootclasspath', `${path.join(work, 'stubs')}:${tc.androidJar}`, '-cp', tc.jars.zxingCore, '-d', path.join(work, 'compat'), ...src.compat]),
    );
  }
  const generated = filesUnder(path.join(work, 'gen'), '.java').map((f) => path.join(work, 'gen', f));
  await step(`javac core + app (${src.main.length} files)`, () =>
    runOk('javac core + app', jdk.javac, [
      ...javac8, '-bootclasspath', tc.androidJar, '-cp', `${path.join(work, 'compat')}:${tc.jars.zxingCore}`,
      '-d', path.join(work, 'classes'), ...src.main, ...generated,
    ]),
  );
  const dex = path.join(work, 'dex', 'classes.dex');
  const ownDex = path.join(work, 'own.dex');
  await step('dx (core, app, compat)', () =>
    runOk('dx', jdk.java, ['-jar', tc.dxJar, '--dex', `--min-sdk-version=${MIN_SDK}`, `--output=${ownDex}`, path.join(work, 'classes'), ...(src.compat.length ? [path.join(work, 'compat')] : [])]),
  );
  const libraries = await predexLibraries(tc, jdk, path.join(tc.dir, 'dex-cache'), step);
  await step('merge with the libraries\' dex', () => runOk('dx merge', jdk.java, ['-cp', tc.dxJar, 'com.android.dx.merge.DexMerger', dex, ownDex, ...libraries]));
  await step('aapt add classes.dex + zipalign', async () => {
    // aapt names the entry after the path it is given, so it runs beside the dex.
    await runOk('aapt add', tc.aapt, ['add', '-k', unaligned, 'classes.dex'], { env: tc.env, cwd: path.dirname(dex) });
    await runOk('zipalign', tc.zipalign, ['-p', '-f', '4', unaligned, path.join(work, 'aligned.apk')], { env: tc.env });
  });
}

/**
 * The libraries the app needs (zxing core, for scanning the pairing QR code), each dexed once and
 * kept beside the toolchain: dexing zxing takes most of a build, and it changes only with the toolchain.
 */
async function predexLibraries(tc: Toolchain, jdk: Jdk, cacheDir: string, step: Step): Promise<string[]> {
  mkdirSync(cacheDir, { recursive: true });
  const out: string[] = [];
  for (const jar of [tc.jars.zxingCore]) {
    const id = createHash('sha256').update(readFileSync(jar)).update(`${MIN_SDK}\0${tc.dxJar}`).digest('hex').slice(0, 16);
    const cached = path.join(cacheDir, `${path.basename(jar, '.jar')}-${id}.dex`);
    if (!existsSync(cached)) {
      await step(`dx ${path.basename(jar)} (once)`, async () => {
        const partial = path.join(cacheDir, `partial-${process.pid}.dex`);
        await runOk('dx', jdk.java, ['-jar', tc.dxJar, '--dex', `--min-sdk-version=${MIN_SDK}`, `--output=${partial}`, jar]);
        renameSync(partial, cached);
      });
    }
    out.push(cached);
  }
  return out;
}
