import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { until } from '../helpers/waits.js';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const API_KEY = 'deploy-ci-key-0123456789abcdef';
/** The image test/deploy builds; compose's `image: voice-gateway:latest` resolves to it. */
export const IMAGE = 'localhost/voice-gateway:latest';

/**
 * Why the container tests cannot run here, or undefined when they can. In CI (`CI` set) a missing
 * podman is a failure, not a skip: .ci/run installs it.
 */
export function podmanMissing(): string | undefined {
  if (process.env.VG_DEPLOY_TESTS === '0') return 'VG_DEPLOY_TESTS=0 (.ci/run runs them in a step of their own)';
  const absent = ['podman', 'runc', 'mmdebstrap', 'podman-compose'].filter((tool) => spawnSync(tool, ['--version']).status !== 0);
  if (absent.length) return `${absent.join(', ')} not installed (apt-get install podman buildah runc mmdebstrap podman-compose, as .ci/run does)`;
  if (process.getuid?.() !== 0) return 'they need root (podman with runc and cgroupfs, as on the CI machines)';
  return undefined;
}

/**
 * podman's settings for CI machines: runc (crun refuses hybrid cgroups), cgroupfs (no systemd),
 * file events, and ulimits within this machine's hard limits (podman's default nofile exceeds them).
 */
export function containersConf(): string {
  const hardNofile = spawnSync('sh', ['-c', 'ulimit -Hn'], { encoding: 'utf8' }).stdout.trim();
  const nofile = /^\d+$/.test(hardNofile) ? Math.min(Number(hardNofile), 1048576) : 20000;
  const dir = mkdtempSync(path.join(tmpdir(), 'vg-podman-'));
  const file = path.join(dir, 'containers.conf');
  writeFileSync(
    file,
    [
      '[containers]',
      `default_ulimits = ["nofile=${nofile}:${nofile}", "nproc=32768:32768"]`,
      '[engine]',
      'runtime = "runc"',
      'cgroup_manager = "cgroupfs"',
      'events_logger = "file"',
      '',
    ].join('\n'),
  );
  return file;
}

export interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command to its end; `env` adds to process.env. */
export function sh(command: string, args: readonly string[], options: { env?: NodeJS.ProcessEnv; cwd?: string; input?: string } = {}): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd ?? ROOT, env: { ...process.env, ...options.env }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(options.input ?? '');
  });
}

/** Like sh, but a non-zero exit throws with the command's output. */
export async function must(command: string, args: readonly string[], options: { env?: NodeJS.ProcessEnv; cwd?: string; input?: string } = {}): Promise<string> {
  const r = await sh(command, args, options);
  if (r.code !== 0) throw new Error(`${command} ${args.join(' ')} exited ${r.code}\n${r.stderr.slice(-3000)}\n${r.stdout.slice(-2000)}`);
  return r.stdout;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/**
 * Waits until `url` answers 200. A container's start has no event the host can await, so this asks
 * every 200 ms, up to `timeoutMs`.
 */
export async function waitFor200(url: string, timeoutMs = 60_000): Promise<void> {
  const answer = async (): Promise<string> => {
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
      return res.status === 200 ? 'ok' : `${res.status} ${await res.text()}`;
    } catch (err) {
      return (err as Error).message;
    }
  };
  await until(answer, (last) => last === 'ok', { timeoutMs, intervalMs: 200, what: `${url} answering 200` });
}

export async function api<T>(base: string, method: string, route: string, body?: unknown): Promise<{ status: number; body: T }> {
  const res = await fetch(`${base}${route}`, {
    method,
    headers: { authorization: `Bearer ${API_KEY}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as T };
}

/** Everything a child printed so far, and a wait for a line matching a pattern (seen already or to come). */
function watchOutput(child: ChildProcessWithoutNullStreams): (re: RegExp, timeoutMs: number) => Promise<RegExpExecArray> {
  let seen = '';
  child.stdout.on('data', (d: Buffer) => (seen += d.toString()));
  child.stderr.on('data', (d: Buffer) => (seen += d.toString()));
  // A pattern may span the chunks the pipe delivers: it is matched on everything printed so far.
  const wake = (poke: () => void): (() => void) => {
    child.stdout.on('data', poke);
    return () => child.stdout.off('data', poke);
  };
  return async (re, timeoutMs) => {
    try {
      return (await until(() => re.exec(seen), (m) => m !== null, { timeoutMs, wake, what: `a line matching ${re}` }))!;
    } catch {
      throw new Error(`no line matching ${re} within ${timeoutMs} ms; the phone said:\n${seen}`);
    }
  };
}

/**
 * What README tells a user to do with a gateway they started: pair the simulated phone
 * (`npm run phone -- --url … --code …`) and place a call through it; resolves with the call's id
 * once the phone and the gateway both say the call is active.
 */
export async function pairAndCall(base: string): Promise<string> {
  const pairing = await api<{ code: string }>(base, 'POST', '/v1/pairing', { publicUrl: base });
  if (pairing.status !== 200) throw new Error(`POST /v1/pairing answered ${pairing.status}: ${JSON.stringify(pairing.body)}`);
  const phone = spawn('npm', ['run', '--silent', 'phone', '--', '--url', base, '--code', pairing.body.code, '--ring-ms', '300'], {
    cwd: ROOT,
    stdio: ['pipe', 'pipe', 'pipe'],
    // Its own process group: npm, tsx and node stop together.
    detached: true,
  });
  const lineMatching = watchOutput(phone);
  try {
    const deviceId = (await lineMatching(/connected to \S+ as (\S+)/, 30_000))[1]!;
    const placed = await api<{ call: { id: string } }>(base, 'POST', '/v1/calls', { deviceId, to: '+15550100' });
    if (placed.status !== 202) throw new Error(`POST /v1/calls answered ${placed.status}: ${JSON.stringify(placed.body)}`);
    const call = { body: placed.body.call };
    await lineMatching(new RegExp(`call ${call.body.id} \\S+ \\S+: active`), 20_000);
    // The gateway has it too (its state may trail the phone's report by a moment).
    const state = async (): Promise<string> => (await api<{ call: { state: string } }>(base, 'GET', `/v1/calls/${call.body.id}`)).body.call.state;
    await until(state, (s) => s === 'active', { timeoutMs: 10_000, intervalMs: 100, what: 'the gateway showing the call active, as the phone does' });
    const hangup = await api(base, 'POST', `/v1/calls/${call.body.id}/hangup`);
    if (hangup.status >= 300) throw new Error(`hangup answered ${hangup.status}`);
    return call.body.id;
  } finally {
    try {
      process.kill(-phone.pid!, 'SIGINT');
    } catch {
      // already gone
    }
  }
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/**
 * Removes what an earlier run left when it was killed before its cleanup (a CI timeout): containers,
 * volumes and networks named vgci<pid>… whose process is gone. A run still going keeps its own.
 */
export async function sweepDeadRuns(env: NodeJS.ProcessEnv): Promise<void> {
  const dead = (name: string): boolean => {
    const pid = /^vgci(\d+)/.exec(name)?.[1];
    return pid !== undefined && Number(pid) !== process.pid && !alive(Number(pid));
  };
  const list = async (args: string[]): Promise<string[]> => (await sh('podman', args, { env })).stdout.split('\n').filter(dead);
  const containers = await list(['ps', '-a', '--format', '{{.Names}}']);
  if (containers.length) await sh('podman', ['rm', '-f', '-v', ...containers], { env });
  const volumes = await list(['volume', 'ls', '--format', '{{.Name}}']);
  if (volumes.length) await sh('podman', ['volume', 'rm', '-f', ...volumes], { env });
  const networks = await list(['network', 'ls', '--format', '{{.Name}}']);
  if (networks.length) await sh('podman', ['network', 'rm', '-f', ...networks], { env });
}
