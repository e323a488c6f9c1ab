/**
 * The app's ADB code (android/core/.../adb) against the real peers, through the host runner's
 * subcommands `adb-pair`, `adb-shell` and `adb-start` (what `npm run phone:jvm -- adb-pair …` runs):
 * AOSP's own pairing server and Debian's adbd rebuilt with TLS and key checking, both built from
 * Debian's packages by scripts/android/adb-peers/build-peers.sh into android/.adb-peers/bin.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ANDROID_DIR } from '../../scripts/android/paths.js';
import { hostBuild, requireJdk, skipAndroid, tempDir } from './support.js';

const BIN = path.join(ANDROID_DIR, '.adb-peers/bin');
const PEERS = ['run', 'adb_pairing_server', 'adbd-tls'].map((p) => path.join(BIN, p));
const MISSING = PEERS.some((p) => !existsSync(p));
// Locally the suite is skipped with one line; in CI (.ci/run builds the peers) a missing peer fails.
if (MISSING && !process.env.CI && !skipAndroid) {
  console.warn('adb-peers: skipped, the ADB peers are not built (run scripts/android/adb-peers/build-peers.sh, about 2 minutes)');
}

const started: ChildProcess[] = [];
afterEach(() => {
  for (const child of started.splice(0)) child.kill('SIGKILL');
});

/** Starts a peer through trixie's loader (bin/run); resolves with it and its stdout lines. */
function peer(program: string, args: string[], env: Record<string, string> = {}): { child: ChildProcess; lines: AsyncIterator<string> } {
  const child = spawn(path.join(BIN, 'run'), [path.join(BIN, program), ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  started.push(child);
  child.stderr?.resume();
  return { child, lines: createInterface({ input: child.stdout! })[Symbol.asyncIterator]() };
}

async function pairingServer(code: string): Promise<{ port: number; next: () => Promise<string> }> {
  const { lines } = peer('adb_pairing_server', ['0', code]);
  const next = async (): Promise<string> => {
    const line = await lines.next();
    return line.done ? '(pairing server ended)' : line.value;
  };
  const first = await next();
  const port = Number(/^listening (\d+)$/.exec(first)?.[1]);
  if (!port) throw new Error(`pairing server: ${first}`);
  return { port, next };
}

let classpath: string[] = [];

/** `java … Main ARGS`, as `npm run phone:jvm -- ARGS` runs it. */
function runner(args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(requireJdk().java, ['-cp', classpath.join(':'), 'dev.voicegateway.jvm.Main', ...args]);
    started.push(child);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** adbd logs nothing on stdout when it listens: the test connects until it accepts. */
async function accepting(port: number, child: ChildProcess): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (child.exitCode !== null) throw new Error(`adbd exited with ${child.exitCode}`);
    const ok = await new Promise<boolean>((resolve) => {
      const s = net.connect(port, '127.0.0.1', () => {
        s.destroy();
        resolve(true);
      });
      s.on('error', () => resolve(false));
    });
    if (ok) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('adbd never listened');
}

describe.skipIf(skipAndroid || (MISSING && !process.env.CI))('ADB pairing and transport against the real peers', () => {
  beforeAll(() => {
    if (MISSING) throw new Error(`ADB peers missing in ${BIN}: .ci/run runs scripts/android/adb-peers/build-peers.sh`);
    classpath = hostBuild().runtime;
  });

  async function pair(keyDir: string, code = '482913'): Promise<string> {
    const server = await pairingServer(code);
    const result = await runner(['adb-pair', `127.0.0.1:${server.port}`, code, '--key-dir', keyDir]);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/^paired with 127\.0\.0\.1:\d+ \(key [0-9a-f]{16}; the phone says: adb-test-device-guid\)/);
    const line = await server.next();
    const key = /^paired type=0 data=(\S+ voicegateway@jvm)$/.exec(line)?.[1];
    if (!key) throw new Error(`the pairing server said: ${line}`);
    return key;
  }

  it('pairs with the right code: the server holds our public key, and our key is stored for us alone', async () => {
    const keyDir = path.join(tempDir(), 'adb');
    const key = await pair(keyDir);
    // adb's public key format: base64 of 524 bytes, then the name.
    expect(Buffer.from(key.split(' ')[0]!, 'base64')).toHaveLength(524);
    for (const file of ['adb-key.pk8', 'adb-cert.der']) expect(statSync(path.join(keyDir, file)).mode & 0o777).toBe(0o600);
  }, 60_000);

  it('refuses a wrong code clearly, and the server stores nothing', async () => {
    const server = await pairingServer('482913');
    const result = await runner(['adb-pair', `127.0.0.1:${server.port}`, '000000', '--key-dir', path.join(tempDir(), 'adb')]);
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/adb-pair: the phone('s answer does not decrypt: the pairing code was wrong| refused the pairing code)/);
    expect(result.stdout).toBe('');
    // AOSP's server keeps listening after a failed attempt: it said nothing, so it paired nobody.
    const said = await Promise.race([server.next(), new Promise<string>((resolve) => setTimeout(() => resolve('nothing'), 1000))]);
    expect(said).toBe('nothing');
  }, 60_000);

  it('runs shell: on adbd with the paired key, and adbd refuses an unknown key', async () => {
    const dir = tempDir();
    const pairedDir = path.join(dir, 'paired');
    const strangerDir = path.join(dir, 'stranger');
    const adbKeys = path.join(dir, 'adb_keys');
    // What adbd does with a paired key: it keeps it in its adb_keys.
    writeFileSync(adbKeys, `${await pair(pairedDir)}\n`);
    await pair(strangerDir); // a real key, paired elsewhere, unknown to this adbd
    const port = await freePort();
    mkdirSync(path.join(dir, 'home'));
    const { child } = peer('adbd-tls', [], { ADBD_PORT: String(port), ADBD_TLS: '1', ADBD_AUTH: '1', ADBD_KEYS: adbKeys, HOME: path.join(dir, 'home') });
    await accepting(port, child);

    const ok = await runner(['adb-shell', `127.0.0.1:${port}`, '--key-dir', pairedDir, '--', 'echo', 'started-by-the-phone', '&&', 'id', '-u']);
    expect(ok.stderr).toBe('');
    expect(ok.status).toBe(0);
    expect(ok.stdout).toBe(`started-by-the-phone\n${process.getuid?.()}\n`);

    const refused = await runner(['adb-shell', `127.0.0.1:${port}`, '--key-dir', strangerDir, '--', 'echo', 'nope']);
    expect(refused.status).toBe(1);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toMatch(/the phone refused this ADB key: pair again/);
  }, 120_000);

  it("the app's start run (adb-start) against adbd: on, past a stale port, the command run, off again; an unknown key is a forgotten pairing", async () => {
    const dir = tempDir();
    const pairedDir = path.join(dir, 'paired');
    const strangerDir = path.join(dir, 'stranger');
    const adbKeys = path.join(dir, 'adb_keys');
    writeFileSync(adbKeys, `${await pair(pairedDir)}\n`);
    await pair(strangerDir);
    const port = await freePort();
    const stale = await freePort(); // nothing listens there: a port announced before Wireless debugging restarted
    mkdirSync(path.join(dir, 'home'));
    const { child } = peer('adbd-tls', [], { ADBD_PORT: String(port), ADBD_TLS: '1', ADBD_AUTH: '1', ADBD_KEYS: adbKeys, HOME: path.join(dir, 'home') });
    await accepting(port, child);
    const announced = path.join(dir, 'helper-announced');

    const started = await runner(['adb-start', `127.0.0.1:${port}`, '--key-dir', pairedDir, '--stale-port', String(stale), '--await-file', announced, '--', 'touch', announced]);
    expect(started.stderr).toBe('');
    expect(started.stdout).toBe(
      `wireless debugging on\nconnecting to 127.0.0.1:${stale}\nconnecting to 127.0.0.1:${port}\nwireless debugging off\noutcome: STARTED: The audio helper is running.\n`,
    );
    expect(started.status).toBe(0);
    expect(existsSync(announced)).toBe(true);

    const forgotten = await runner(['adb-start', `127.0.0.1:${port}`, '--key-dir', strangerDir, '--', 'true']);
    expect(forgotten.status).toBe(1);
    expect(forgotten.stdout).toBe(
      `wireless debugging on\nconnecting to 127.0.0.1:${port}\nwireless debugging off\noutcome: PAIRING_FORGOTTEN: The phone has forgotten the pairing (Wireless debugging > Paired devices). Pair again from the app.\n`,
    );
  }, 120_000);

  it('adb-shell without a paired key says to pair first', async () => {
    const result = await runner(['adb-shell', '127.0.0.1:1', '--key-dir', path.join(tempDir(), 'none'), '--', 'true']);
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/no ADB key in .*: pair first \(adb-pair\)/);
  }, 30_000);
});
