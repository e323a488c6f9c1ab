import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { AndroidToolError, run, runOk, tail, withLock } from './exec.js';
import { onPath } from './jdk.js';
import { ANDROID_DIR } from './paths.js';

/**
 * Every Debian package of the Android toolchain and the suite it comes from: the one place to change
 * when a suite leaves the mirror or a package moves. Nothing is installed into the system; the
 * packages are unpacked with `dpkg -x` into android/.toolchain/root.
 */
export const TOOLCHAIN_SOURCES: ReadonlyArray<{ suite: string; packages: readonly string[] }> = [
  {
    // aapt, zipalign, apksigner, dexdump and the libraries the native tools load (libbacktrace
    // opens p7zip's 7z.so); JUnit, hamcrest and org.json for the core's host tests; zxing core.
    suite: 'bookworm',
    packages: [
      'aapt', 'android-libaapt', 'android-libandroidfw', 'android-libbase', 'android-liblog', 'android-libutils',
      'android-libziparchive', 'android-libcutils', 'android-libbacktrace', 'android-libunwind', 'p7zip-full',
      'libprotobuf-lite32', 'zipalign', 'libzopfli1', 'apksigner', 'libapksig-java', 'dexdump', 'android-libart',
      'android-libnativeloader', 'android-libnativebridge', 'junit4', 'libhamcrest-java', 'libandroid-json-java',
      'libzxing-core-java',
      // BouncyCastle's TLS (bctls with bcprov and bcutil), for the host JVM only, never in the APK: the
      // JDK's TLS exports no keying material, and ADB pairing's password needs it (core/adb).
      'libbcprov-java', 'libbctls-java', 'libbcutil-java',
    ],
  },
  // dx (the dexer) and android.jar exist only in bullseye; API 23 is the newest android.jar packaged.
  { suite: 'bullseye', packages: ['dalvik-exchange', 'libandroid-23-java'] },
  // A framework-res.apk that knows the API 33+ manifest attributes (foregroundServiceType values).
  { suite: 'trixie', packages: ['android-framework-res'] },
];

export const TOOLCHAIN_DIR = path.join(ANDROID_DIR, '.toolchain');

/** Paths of the unpacked tools, and the environment the native ones need. */
export interface Toolchain {
  dir: string;
  aapt: string;
  zipalign: string;
  dexdump: string;
  dxJar: string;
  /** Class path of apksigner (com.android.apksigner.ApkSignerTool). */
  apksignerClasspath: string;
  /** android.jar of API 23. */
  androidJar: string;
  /** framework-res.apk that aapt links the manifest and resources against. */
  frameworkRes: string;
  jars: { zxingCore: string; junit: string; hamcrest: string; json: string; bouncyCastle: string[] };
  /** process.env plus LD_LIBRARY_PATH for aapt, zipalign and dexdump. */
  env: NodeJS.ProcessEnv;
}

/** `java` arguments that run apksigner with these arguments. */
export const apksignerArgs = (tc: Toolchain, args: readonly string[]): string[] => ['-cp', tc.apksignerClasspath, 'com.android.apksigner.ApkSignerTool', ...args];

const MULTIARCH: Record<string, string> = { x64: 'x86_64-linux-gnu', arm64: 'aarch64-linux-gnu' };

function locate(dir: string): Toolchain {
  const root = path.join(dir, 'root');
  const bt = path.join(root, 'usr/lib/android-sdk/build-tools/debian');
  const java = path.join(root, 'usr/share/java');
  // Links inside the packages are relative, so they resolve inside root.
  const real = (p: string): string => {
    if (!existsSync(p)) throw new AndroidToolError(`The Android toolchain in ${dir} lacks ${path.relative(root, p)}; delete ${dir} and fetch it again`);
    return realpathSync(p);
  };
  const lib = path.join(root, 'usr/lib', MULTIARCH[process.arch] ?? `${process.arch}-linux-gnu`);
  const libraryPath = [path.join(lib, 'android'), lib, path.join(root, 'usr/lib'), path.join(root, 'usr/lib/p7zip'), process.env.LD_LIBRARY_PATH]
    .filter(Boolean)
    .join(':');
  return {
    dir,
    aapt: real(path.join(bt, 'aapt')),
    zipalign: real(path.join(bt, 'zipalign')),
    dexdump: real(path.join(bt, 'dexdump')),
    dxJar: real(path.join(bt, 'lib/dx.jar')),
    apksignerClasspath: [real(path.join(java, 'apksigner.jar')), real(path.join(java, 'apksig.jar'))].join(':'),
    androidJar: real(path.join(root, 'usr/lib/android-sdk/platforms/android-23/android.jar')),
    frameworkRes: real(path.join(root, 'usr/share/android-framework-res/framework-res.apk')),
    jars: {
      zxingCore: real(path.join(java, 'core.jar')),
      junit: real(path.join(java, 'junit4.jar')),
      hamcrest: real(path.join(java, 'hamcrest.jar')),
      json: real(path.join(java, 'com.android.json.jar')),
      bouncyCastle: ['bcprov.jar', 'bctls.jar', 'bcutil.jar'].map((jar) => real(path.join(java, jar))),
    },
    env: { ...process.env, LD_LIBRARY_PATH: libraryPath },
  };
}

/**
 * The Debian mirror this machine's apt is configured with (deb822 `.sources` files or the classic
 * sources.list), skipping the security archive. Pure, for tests.
 */
export function mirrorFromAptSources(files: ReadonlyArray<{ name: string; text: string }>): string | undefined {
  for (const { name, text } of files) {
    if (name.endsWith('.sources')) {
      for (const stanza of text.split(/\n\s*\n/)) {
        const field = (key: string): string[] => stanza.match(new RegExp(`^${key}:\\s*(.+)$`, 'im'))?.[1]?.trim().split(/\s+/) ?? [];
        if (field('Enabled')[0]?.toLowerCase() === 'no' || !field('Types').includes('deb')) continue;
        const suites = field('Suites');
        const uri = field('URIs').find((u) => /^https?:\/\//.test(u));
        if (uri && suites.some((s) => !s.includes('security'))) return uri;
      }
    } else {
      for (const line of text.split('\n')) {
        const words = line.replace(/#.*/, '').trim().split(/\s+/);
        if (words[0] !== 'deb') continue;
        const at = words.findIndex((w) => /^https?:\/\//.test(w));
        const suite = words[at + 1] ?? '';
        if (at > 0 && !suite.includes('security')) return words[at];
      }
    }
  }
  return undefined;
}

function configuredMirror(env: NodeJS.ProcessEnv): string {
  if (env.VG_DEBIAN_MIRROR) return env.VG_DEBIAN_MIRROR;
  const files: Array<{ name: string; text: string }> = [];
  const partsDir = '/etc/apt/sources.list.d';
  if (existsSync(partsDir)) {
    for (const name of readdirSync(partsDir).sort()) if (/\.(sources|list)$/.test(name)) files.push({ name, text: readFileSync(path.join(partsDir, name), 'utf8') });
  }
  if (existsSync('/etc/apt/sources.list')) files.push({ name: 'sources.list', text: readFileSync('/etc/apt/sources.list', 'utf8') });
  const mirror = mirrorFromAptSources(files);
  if (!mirror) throw new AndroidToolError('No Debian mirror is configured in /etc/apt; set VG_DEBIAN_MIRROR (for example http://deb.debian.org/debian)');
  return mirror;
}

const stampText = (): string => JSON.stringify(TOOLCHAIN_SOURCES);

export interface ToolchainOptions {
  dir?: string;
  /** Used for VG_DEBIAN_MIRROR; defaults to process.env. */
  env?: NodeJS.ProcessEnv;
  log?: (line: string) => void;
}

/** The toolchain when it has been fetched (for this package list), else undefined. */
export function existingToolchain(dir = TOOLCHAIN_DIR): Toolchain | undefined {
  try {
    return readFileSync(path.join(dir, '.complete'), 'utf8') === stampText() ? locate(dir) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Fetches the toolchain into android/.toolchain/ once (about 40 MB of .debs), through a private apt
 * configuration: its own sources list, lists, cache and status file, the machine's mirror, nothing
 * written outside `dir`. Later calls return at once.
 */
export async function ensureToolchain(options: ToolchainOptions = {}): Promise<Toolchain> {
  const dir = options.dir ?? TOOLCHAIN_DIR;
  const ready = existingToolchain(dir);
  if (ready) return ready;
  return withLock(path.join(dir, '.lock'), async () => {
    const again = existingToolchain(dir);
    if (again) return again;
    await fetchToolchain(dir, configuredMirror(options.env ?? process.env), options.log ?? (() => {}));
    writeFileSync(path.join(dir, '.complete'), stampText());
    return locate(dir);
  });
}

async function fetchToolchain(dir: string, mirror: string, log: (line: string) => void): Promise<void> {
  for (const command of ['apt-get', 'dpkg']) {
    if (!onPath(command)) throw new AndroidToolError(`${command} is needed to fetch the Android toolchain (a Debian machine)`);
  }
  for (const sub of ['apt', 'debs', 'root']) rmSync(path.join(dir, sub), { recursive: true, force: true });
  const apt = path.join(dir, 'apt');
  mkdirSync(path.join(apt, 'lists/partial'), { recursive: true });
  mkdirSync(path.join(apt, 'cache/archives/partial'), { recursive: true });
  mkdirSync(path.join(dir, 'debs'));
  mkdirSync(path.join(dir, 'root'));
  const keyring = '/usr/share/keyrings/debian-archive-keyring.gpg';
  writeFileSync(
    path.join(apt, 'sources.list'),
    TOOLCHAIN_SOURCES.map(({ suite }) => `deb [signed-by=${keyring}] ${mirror} ${suite} main\n`).join(''),
  );
  writeFileSync(path.join(apt, 'status'), '');
  const options = [
    `Dir::Etc::SourceList=${apt}/sources.list`,
    'Dir::Etc::SourceParts=/nonexistent',
    'Dir::Etc::Preferences=/nonexistent',
    'Dir::Etc::PreferencesParts=/nonexistent',
    `Dir::State::Lists=${apt}/lists`,
    `Dir::Cache=${apt}/cache`,
    `Dir::State::status=${apt}/status`,
    'Debug::NoLocking=1',
    'Acquire::Retries=1',
    'Acquire::http::Timeout=30',
    // As root, apt would hand the download to the _apt user, who may not write here.
    ...(process.getuid?.() === 0 ? ['APT::Sandbox::User=root'] : []),
  ].flatMap((o) => ['-o', o]);

  log(`fetching the package lists of ${TOOLCHAIN_SOURCES.map((s) => s.suite).join(', ')} from ${mirror}`);
  const update = await run('apt-get', [...options, '-q', 'update'], { timeoutMs: 5 * 60_000 });
  if (update.code !== 0 || /^(E|W): (Failed to fetch|Some index files failed)/m.test(update.stderr)) {
    throw new AndroidToolError(
      `The Debian mirror ${mirror} could not be reached (apt-get update failed), so the Android toolchain cannot be fetched.\n` +
        `Check the network, or set VG_DEBIAN_MIRROR to a reachable Debian mirror.\n${tail(update.stderr || update.stdout, 8)}`,
    );
  }
  const wanted = TOOLCHAIN_SOURCES.flatMap(({ suite, packages }) => packages.map((p) => `${p}/${suite}`));
  log(`downloading ${wanted.length} packages`);
  const download = await run('apt-get', [...options, '-q', 'download', ...wanted], { cwd: path.join(dir, 'debs'), timeoutMs: 10 * 60_000 });
  if (download.code !== 0) {
    throw new AndroidToolError(
      `apt-get download failed. If a package is no longer in its suite on ${mirror}, change TOOLCHAIN_SOURCES in scripts/android/toolchain.ts.\n${tail(download.stderr, 8)}`,
    );
  }
  const debs = readdirSync(path.join(dir, 'debs')).filter((f) => f.endsWith('.deb'));
  log(`unpacking ${debs.length} packages`);
  for (const deb of debs) await runOk(`dpkg -x ${deb}`, 'dpkg', ['-x', path.join(dir, 'debs', deb), path.join(dir, 'root')]);
  // Only the unpacked tree is kept: the lists and the .debs are 90 MB that nothing reads again.
  for (const sub of ['apt/lists', 'apt/cache', 'debs']) rmSync(path.join(dir, sub), { recursive: true, force: true });
}
