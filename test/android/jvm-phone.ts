import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { Recorded } from '../helpers/waits.js';
import { hostBuild, requireJdk } from './support.js';

/** One line the JVM phone wrote on stdout (see android/jvm Control.java). */
// Lines are read field by field in assertions; `unknown` would only add casts.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type JvmLine = { kind: string; [field: string]: any };

export interface JvmPhoneOptions {
  url: string;
  code?: string;
  tokenFile?: string;
  /** Where outbox and calls are kept; a fresh temporary directory by default. */
  stateDir?: string;
  /** Extra CLI options (`--stamp`, `--outcome busy`, `--trust cert.pem` …). */
  args?: string[];
  /** Shorter intervals for tests (health, ping, liveness, welcome, probe, backoff, backoffMax in ms), jitterMax (frames), helper*. */
  timings?: Record<string, number>;
}

const DEFAULT_TIMINGS = { backoff: 100, backoffMax: 400 };

/**
 * The Android app's core running on the host JVM as a phone (`npm run phone:jvm -- --control`),
 * driven over stdin and recorded from stdout: every status change and every protocol message.
 */
export class JvmPhone {
  readonly lines = new Recorded<JvmLine>('JVM phone');
  stderr = '';
  readonly exited: Promise<number | null>;
  readonly stateDir: string;
  private nextId = 1;

  private constructor(
    readonly child: ChildProcessWithoutNullStreams,
    stateDir: string,
  ) {
    this.stateDir = stateDir;
    createInterface({ input: child.stdout }).on('line', (line) => {
      try {
        this.lines.add(JSON.parse(line) as JvmLine);
      } catch {
        this.lines.add({ kind: 'text', text: line });
      }
    });
    child.stderr.on('data', (chunk: Buffer) => {
      this.stderr += chunk.toString('utf8');
    });
    this.exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
  }

  static async start(options: JvmPhoneOptions): Promise<JvmPhone> {
    const build = hostBuild();
    const stateDir = options.stateDir ?? mkdtempSync(path.join(tmpdir(), 'vg-jvm-'));
    const timings = Object.entries({ ...DEFAULT_TIMINGS, ...options.timings })
      .map(([k, v]) => `${k}=${v}`)
      .join(',');
    const args = ['-cp', build.runtime.join(':'), 'dev.voicegateway.jvm.Main', '--url', options.url, '--control', '--state-dir', stateDir, '--timings', timings];
    if (options.code) args.push('--code', options.code);
    if (options.tokenFile) args.push('--token-file', options.tokenFile);
    args.push(...(options.args ?? []));
    const phone = new JvmPhone(spawn(requireJdk().java, args, { stdio: ['pipe', 'pipe', 'pipe'] }), stateDir);
    await Promise.race([
      phone.lines.next((l) => l.kind === 'ready', { timeoutMs: 15_000, what: 'JVM phone ready' }),
      phone.exited.then((code) => {
        throw new Error(`the JVM phone exited with ${code} before it was ready:\n${phone.stderr}`);
      }),
    ]);
    return phone;
  }

  /** Asks the phone to do something (see Control.java for the ops) and returns the result line. */
  async request(op: string, fields: Record<string, unknown> = {}, timeoutMs = 5000): Promise<JvmLine> {
    const id = this.nextId++;
    const result = this.lines.next((l) => l.kind === 'result' && l['id'] === id, { timeoutMs, what: `result of ${op}` });
    this.child.stdin.write(`${JSON.stringify({ id, op, ...fields })}\n`);
    const line = await result;
    if (!line['ok']) throw new Error(`${op} failed: ${line['error']}`);
    return line;
  }

  /** The first status line (seen already, or to come) that passes `test`. */
  status(test: (s: JvmLine) => boolean, timeoutMs = 5000, what = 'status'): Promise<JvmLine> {
    return this.lines.next((l) => l.kind === 'status' && test(l), { timeoutMs, what: `${what}; stderr:\n${this.stderr.slice(-1500)}` });
  }

  /** The next status line still to come that passes `test`. */
  nextStatus(test: (s: JvmLine) => boolean, timeoutMs = 5000, what = 'status'): Promise<JvmLine> {
    return this.lines.nextNew((l) => l.kind === 'status' && test(l), { timeoutMs, what: `${what}; stderr:\n${this.stderr.slice(-1500)}` });
  }

  connected(timeoutMs = 5000): Promise<JvmLine> {
    return this.status((s) => s['link'] === 'CONNECTED', timeoutMs, 'connected');
  }

  /** Protocol messages the phone sent (`out`) or received (`in`), oldest first. */
  messages(dir: 'in' | 'out', type?: string): JvmLine[] {
    return this.lines.items
      .filter((l) => l.kind === 'message' && l['dir'] === dir && (!type || l['message'].type === type))
      .map((l) => l['message'] as JvmLine);
  }

  /** A protocol message (seen already, or to come) in direction `dir` that passes `test`. */
  async message(dir: 'in' | 'out', test: (m: JvmLine) => boolean, timeoutMs = 5000, what = `${dir} message`): Promise<JvmLine> {
    const line = await this.lines.next((l) => l.kind === 'message' && l['dir'] === dir && test(l['message'] as JvmLine), { timeoutMs, what });
    return line['message'] as JvmLine;
  }

  /** The next protocol message still to come. */
  async nextMessage(dir: 'in' | 'out', test: (m: JvmLine) => boolean, timeoutMs = 5000, what = `${dir} message`): Promise<JvmLine> {
    const line = await this.lines.nextNew((l) => l.kind === 'message' && l['dir'] === dir && test(l['message'] as JvmLine), { timeoutMs, what });
    return line['message'] as JvmLine;
  }

  /** Rings an incoming call; resolves with the callId the gateway named in the ring's event.ack. */
  async ringIncoming(from: string): Promise<string> {
    const ring = this.nextMessage('out', (m) => m.type === 'event' && m['event'] === 'call.ringing', 5000, 'call.ringing');
    await this.request('ring', { from });
    const event = await ring;
    const ack = await this.message('in', (m) => m.type === 'event.ack' && m['eventId'] === event['eventId'], 5000, 'event.ack of call.ringing');
    return ack['callId'] as string;
  }

  /** The event the phone sent for `event` (optionally of one call), once the gateway has acknowledged it. */
  async ackedEvent(event: string, callId?: string, timeoutMs = 5000): Promise<JvmLine> {
    const sent = await this.message('out', (m) => m.type === 'event' && m['event'] === event && (!callId || m['callId'] === callId), timeoutMs, `event ${event}`);
    await this.message('in', (m) => m.type === 'event.ack' && m['eventId'] === sent['eventId'], timeoutMs, `event.ack of ${event}`);
    return sent;
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null) return;
    this.child.stdin.write(`${JSON.stringify({ id: 0, op: 'stop' })}\n`);
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 5000);
    await this.exited;
    clearTimeout(timer);
  }
}
