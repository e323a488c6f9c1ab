/**
 * Our SPAKE2 (android/core/.../adb/Spake2.java) against BoringSSL's own, the one ADB's pairing uses.
 * BoringSSL draws its private scalar from its own RAND_bytes, so there is no fixed vector to compare:
 * each test runs a whole exchange, our side in a JVM and BoringSSL's in Python over ctypes
 * (scripts/android/adb-peers/spake2_peer.py), and compares the keys both sides derive.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { beforeAll, describe, expect, it } from 'vitest';
import { ANDROID_DIR, REPO_ROOT } from '../../scripts/android/paths.js';
import { hostBuild, requireJdk, skipAndroid } from './support.js';

const PEER = path.join(REPO_ROOT, 'scripts/android/adb-peers/spake2_peer.py');

/** BoringSSL's libcrypto from android/.adb-peers (scripts/android/adb-peers/fetch-boringssl.sh). */
function boringssl(): string | undefined {
  const dir = path.join(ANDROID_DIR, '.adb-peers/boringssl');
  if (!existsSync(dir)) return undefined;
  const found = spawnSync('find', [dir, '-name', 'libcrypto.so.0'], { encoding: 'utf8' }).stdout.trim().split('\n')[0];
  return found || undefined;
}

const LIB = boringssl();
const HAVE_PYTHON = spawnSync('python3', ['--version']).status === 0;
const MISSING = !LIB || !HAVE_PYTHON;
// Locally the suite is skipped with one line; in CI (.ci/run fetches the library) a missing peer fails.
if (MISSING && !process.env.CI && !skipAndroid) {
  console.warn('adb-spake2: skipped, BoringSSL peer missing (run scripts/android/adb-peers/fetch-boringssl.sh; needs python3)');
}

interface Side {
  message: Promise<string>;
  answer(peerMessage: string): Promise<string>;
}

/** One side of an exchange speaking Spake2Peer's lines: "msg HEX", then "key HEX" or "refused". */
function side(command: string, args: string[]): Side {
  const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const next = async (): Promise<string> => {
    const line = await lines.next();
    if (line.done) throw new Error(`${command} ended without an answer`);
    return line.value;
  };
  return {
    message: next().then((l) => {
      expect(l).toMatch(/^msg [0-9a-f]{64}$/);
      return l.slice(4);
    }),
    async answer(peerMessage) {
      child.stdin.end(`${peerMessage}\n`);
      return next();
    },
  };
}

describe.skipIf(skipAndroid || (MISSING && !process.env.CI))('SPAKE2 against BoringSSL', () => {
  let classpath: string[] = [];
  beforeAll(() => {
    if (MISSING) throw new Error('BoringSSL peer missing: .ci/run runs scripts/android/adb-peers/fetch-boringssl.sh');
    classpath = hostBuild().testRuntime;
  });

  const ours = (role: string, password: string): Side =>
    side(requireJdk().java, ['-cp', classpath.join(':'), 'dev.voicegateway.jvm.Spake2Peer', role, password]);
  const theirs = (role: string, password: string): Side => side('python3', [PEER, LIB ?? '', role, password]);

  async function exchange(a: Side, b: Side): Promise<[string, string]> {
    const [ma, mb] = await Promise.all([a.message, b.message]);
    return Promise.all([a.answer(mb), b.answer(ma)]);
  }

  // The password as ADB builds it: the six-digit code, then 64 bytes of exported keying material.
  const password = Buffer.concat([Buffer.from('482913'), Buffer.alloc(64, 0xa5)]).toString('hex');
  const wrong = Buffer.concat([Buffer.from('482914'), Buffer.alloc(64, 0xa5)]).toString('hex');

  it('our client and BoringSSL as the server derive the same 64-byte key', async () => {
    const [k1, k2] = await exchange(ours('client', password), theirs('server', password));
    expect(k1).toMatch(/^key [0-9a-f]{128}$/);
    expect(k1).toBe(k2);
  }, 30_000);

  it('BoringSSL as the client and our server derive the same key', async () => {
    const [k1, k2] = await exchange(theirs('client', password), ours('server', password));
    expect(k1).toMatch(/^key [0-9a-f]{128}$/);
    expect(k1).toBe(k2);
  }, 30_000);

  it('a wrong code gives different keys, both ways', async () => {
    const [k1, k2] = await exchange(ours('client', password), theirs('server', wrong));
    const [k3, k4] = await exchange(theirs('client', wrong), ours('server', password));
    for (const k of [k1, k2, k3, k4]) expect(k).toMatch(/^key [0-9a-f]{128}$/);
    expect(k1).not.toBe(k2);
    expect(k3).not.toBe(k4);
  }, 30_000);

  it('BoringSSL refuses a message that is not a point, as ours does', async () => {
    const offCurve = `02${'00'.repeat(31)}`;
    const b = theirs('server', password);
    await b.message;
    expect(await b.answer(offCurve)).toBe('refused');
    const o = ours('server', password);
    await o.message;
    expect(await o.answer(offCurve)).toMatch(/^refused .*not a point/);
  }, 30_000);
});
