import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const children = new Set<ChildProcess>();

export interface Child<M> {
  process: ChildProcess;
  pid: number;
  /** The last lines the child wrote (its logs), for error reports. */
  tail: string[];
  lines: number;
  /** Resolves with the next IPC message that passes `accept`, or rejects after `timeoutMs`. */
  next<T extends M>(accept: (m: M) => m is T, timeoutMs: number, what: string): Promise<T>;
  send(msg: object): void;
  /** Asks nicely (`stop`), then SIGKILL after `graceMs`. */
  stop(graceMs: number): Promise<void>;
}

/** Starts `node --import tsx bench/<script>` with an IPC channel. */
export function spawnChild<M>(script: string, env: NodeJS.ProcessEnv, nodeFlags: string[] = []): Child<M> {
  const proc = spawn(process.execPath, ['--import', 'tsx', ...nodeFlags, path.join(REPO, 'bench', script)], {
    cwd: REPO,
    env,
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  if (proc.pid === undefined) throw new Error(`could not start ${script}`);
  children.add(proc);
  // A send racing the child's exit fails with EPIPE; the exit is what matters.
  proc.on('error', () => {});
  const tail: string[] = [];
  const child: Child<M> = {
    process: proc,
    pid: proc.pid,
    tail,
    lines: 0,
    next: (accept, timeoutMs, what) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => done(new Error(`${script}: no ${what} within ${timeoutMs} ms`)), timeoutMs);
        const onMessage = (m: unknown) => {
          if (accept(m as M)) done(null, m as M);
        };
        const onExit = (code: number | null) => done(new Error(`${script} exited (code ${code}) before ${what}\n${tail.join('\n')}`));
        function done(err: Error | null, m?: M): void {
          clearTimeout(timer);
          proc.off('message', onMessage);
          proc.off('exit', onExit);
          if (err) reject(err);
          else resolve(m as never);
        }
        proc.on('message', onMessage);
        proc.once('exit', onExit);
      }),
    send: (msg) => {
      if (proc.connected) proc.send(msg, () => {});
    },
    stop: async (graceMs) => {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
      if (proc.connected) proc.send({ type: 'stop' }, () => {});
      const timer = setTimeout(() => proc.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
  const collect = (chunk: Buffer) => {
    for (const line of chunk.toString('utf8').split('\n')) {
      if (!line.trim()) continue;
      child.lines++;
      tail.push(line.slice(0, 400));
      if (tail.length > 20) tail.shift();
    }
  };
  proc.stdout?.on('data', collect);
  proc.stderr?.on('data', collect);
  proc.once('exit', () => children.delete(proc));
  return child;
}

/** Kills whatever child is still running (on exit or interrupt). */
export function killChildren(): void {
  for (const proc of children) proc.kill('SIGKILL');
  children.clear();
}

const CLOCK_TICKS = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** CPU time (user + system) of a process in ms, from /proc/<pid>/stat. */
export function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
}

/** Resident memory of a process in MB, from /proc/<pid>/status. */
export function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : Number.NaN;
}
