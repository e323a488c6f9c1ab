import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export interface RunOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Kill the process after this long; every wait of ours has a bound. */
  timeoutMs?: number;
}

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** The failure of a build or check step, with the command's own words. */
export class AndroidToolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AndroidToolError';
  }
}

/** Runs a command and collects its output; never throws for a non-zero exit (see `runOk`). */
export function run(command: string, args: readonly string[], options: RunOptions = {}): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 10 * 60_000);
    child.on('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      reject(error.code === 'ENOENT' ? new AndroidToolError(`${command} was not found`) : error);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code: code ?? (signal ? 128 : 1), stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') });
    });
  });
}

/** Runs a command that must succeed; a failure names the step and quotes the command's last lines. */
export async function runOk(step: string, command: string, args: readonly string[], options: RunOptions = {}): Promise<RunResult> {
  const result = await run(command, args, options);
  if (result.code !== 0) throw new AndroidToolError(`${step} failed (exit ${result.code}):\n${tail(result.stderr || result.stdout)}`);
  return result;
}

export function tail(text: string, lines = 30): string {
  return text.trimEnd().split('\n').slice(-lines).join('\n');
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Runs `fn` while holding a lock directory, so that test files running in parallel (and a build
 * started by hand) never fetch or build into the same folder at once. A lock left by a process that
 * died is taken over.
 */
export async function withLock<T>(lockDir: string, fn: () => Promise<T>, timeoutMs = 10 * 60_000): Promise<T> {
  mkdirSync(path.dirname(lockDir), { recursive: true });
  const owner = path.join(lockDir, 'pid');
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      mkdirSync(lockDir);
      writeFileSync(owner, String(process.pid));
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      let pid = NaN;
      let orphaned = false;
      try {
        pid = Number(readFileSync(owner, 'utf8'));
      } catch {
        // The owner is between mkdir and writing its pid, or died there.
        orphaned = Date.now() - (statSync(lockDir, { throwIfNoEntry: false })?.mtimeMs ?? Date.now()) > 30_000;
      }
      if (orphaned || (Number.isInteger(pid) && pid > 0 && !alive(pid))) {
        rmSync(lockDir, { recursive: true, force: true });
        continue;
      }
      if (Date.now() > deadline) throw new AndroidToolError(`${lockDir} is held by process ${pid || '?'}; remove it if no build is running`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  try {
    return await fn();
  } finally {
    rmSync(lockDir, { recursive: true, force: true });
  }
}
