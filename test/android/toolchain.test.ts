import { existsSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { versionCode } from '../../scripts/android/build.js';
import { onPath } from '../../scripts/android/jdk.js';
import { ensureLocalKey, signingKeyFromEnv } from '../../scripts/android/signing.js';
import { ensureToolchain, mirrorFromAptSources } from '../../scripts/android/toolchain.js';
import { requireJdk, skipAndroid, tempDir } from './support.js';

const dirs: string[] = [];
const scratch = (): string => {
  const dir = tempDir();
  dirs.push(dir);
  return dir;
};
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

describe('toolchain', () => {
  it('finds the Debian mirror apt is configured with, skipping the security archive', () => {
    const deb822 = [
      'Types: deb\n# http://snapshot.debian.org/archive/debian-security/20250520T000000Z\nURIs: http://deb.debian.org/debian-security\nSuites: bookworm-security\nComponents: main\n',
      'Types: deb-src\nURIs: http://src.example.org/debian\nSuites: bookworm\n',
      'Types: deb\nURIs: http://mirror.example.org/debian\nSuites: bookworm bookworm-updates\nComponents: main\n',
    ].join('\n');
    expect(mirrorFromAptSources([{ name: 'debian.sources', text: deb822 }])).toBe('http://mirror.example.org/debian');
    const classic = '# deb http://old.example.org/debian bookworm main\ndeb http://security.debian.org/debian-security bookworm-security main\ndeb [arch=amd64] http://ftp.example.org/debian bookworm main\n';
    expect(mirrorFromAptSources([{ name: 'sources.list', text: classic }])).toBe('http://ftp.example.org/debian');
    expect(mirrorFromAptSources([{ name: 'empty.sources', text: 'Types: deb\nEnabled: no\nURIs: http://x/debian\nSuites: bookworm\n' }])).toBeUndefined();
  });

  it.skipIf(!onPath('apt-get') || !onPath('dpkg'))('says plainly when the mirror cannot be reached', async () => {
    const dir = scratch();
    // Port 9 (discard) on loopback refuses the connection at once.
    await expect(ensureToolchain({ dir, env: { VG_DEBIAN_MIRROR: 'http://127.0.0.1:9/debian' } })).rejects.toThrow(
      /The Debian mirror http:\/\/127\.0\.0\.1:9\/debian could not be reached[\s\S]*VG_DEBIAN_MIRROR/,
    );
    expect(existsSync(path.join(dir, '.complete'))).toBe(false);
  });
});

describe('versions and signing keys', () => {
  it('derives a versionCode that grows with every release', () => {
    expect(versionCode('0.1.0')).toBe(1000);
    expect(versionCode('1.2.3')).toBe(1_002_003);
    expect(versionCode('1.2.3-beta.1')).toBe(1_002_003);
    expect(versionCode('1.10.0')).toBeGreaterThan(versionCode('1.9.99'));
    expect(() => versionCode('1.2')).toThrow(/MAJOR.MINOR.PATCH/);
    expect(() => versionCode('1.1000.0')).toThrow(/at most 999/);
  });

  it('takes an operator\'s key from the environment, and refuses an incomplete one', () => {
    expect(signingKeyFromEnv({})).toBeUndefined();
    const keystore = path.join(scratch(), 'missing.p12');
    expect(() => signingKeyFromEnv({ VG_ANDROID_KEYSTORE: keystore, VG_ANDROID_KEYSTORE_PASSWORD: 'x' })).toThrow(/does not exist/);
    expect(() => signingKeyFromEnv({ VG_ANDROID_KEYSTORE: import.meta.filename })).toThrow(/VG_ANDROID_KEYSTORE_PASSWORD is not/);
    expect(() => signingKeyFromEnv({ VG_ANDROID_KEY_ALIAS: 'release' })).toThrow(/without VG_ANDROID_KEYSTORE/);
    expect(signingKeyFromEnv({ VG_ANDROID_KEYSTORE: import.meta.filename, VG_ANDROID_KEYSTORE_PASSWORD: 'store', VG_ANDROID_KEY_ALIAS: 'release' })).toEqual({
      keystore: import.meta.filename,
      alias: 'release',
      storePassword: 'store',
      keyPassword: 'store',
      origin: 'environment',
    });
  });

  it.skipIf(skipAndroid)('makes the local key once, its password readable only by its owner', async () => {
    const { keytool } = requireJdk();
    const dir = path.join(scratch(), '.keystore');
    const first = await ensureLocalKey(keytool, dir);
    expect(first.origin).toBe('local');
    expect(statSync(path.join(dir, 'password')).mode & 0o777).toBe(0o600);
    expect(statSync(first.keystore).mode & 0o777).toBe(0o600);
    const again = await ensureLocalKey(keytool, dir);
    expect(again).toEqual(first);
    rmSync(path.join(dir, 'password'));
    await expect(ensureLocalKey(keytool, dir)).rejects.toThrow(/password file .* is missing/);
  });
});
