import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { ApiResponse } from '../helpers/gateway.js';
import { Recorded } from '../helpers/waits.js';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export const tempDir = (): string => mkdtempSync(path.join(tmpdir(), 'vg-platform-'));

/** Prints a response for assertion messages. */
export const show = (res: Pick<ApiResponse, 'status' | 'text'>): string => `${res.status} ${res.text.slice(0, 500)}`;

/** Every file under dir (the database, its WAL and shared memory, the key file...), with its bytes. */
export function readTree(dir: string): Array<{ file: string; bytes: Buffer }> {
  const out: Array<{ file: string; bytes: Buffer }> = [];
  for (const name of readdirSync(dir)) {
    const file = path.join(dir, name);
    if (statSync(file).isDirectory()) out.push(...readTree(file));
    else out.push({ file, bytes: readFileSync(file) });
  }
  return out;
}

export { filesContaining, storedContaining } from '../helpers/stored.js';

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  body: unknown;
}

export async function readResponse(res: http.IncomingMessage): Promise<RawResponse> {
  const chunks: Buffer[] = [];
  for await (const chunk of res) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON
  }
  return { status: res.statusCode ?? 0, headers: res.headers, text, body };
}

/**
 * Sends a body with `Transfer-Encoding: chunked` (no Content-Length), one chunk after the other, on
 * a connection of its own. Stops writing once the server has answered (it may answer early, 413).
 */
export async function chunkedRequest(url: string, method: string, chunks: Array<string | Buffer>, headers: Record<string, string> = {}): Promise<RawResponse> {
  const req = http.request(url, { method, agent: false, headers: { 'content-type': 'application/json', ...headers } });
  let answered = false;
  const response = new Promise<http.IncomingMessage>((resolve, reject) => {
    req.once('response', (res) => {
      answered = true;
      resolve(res);
    });
    // A server that answers early closes the connection under a client still writing.
    req.on('error', (err) => {
      if (!answered) reject(err);
    });
  });
  for (const chunk of chunks) {
    if (answered || req.destroyed) break;
    await new Promise<void>((resolve) => req.write(chunk, () => resolve()));
  }
  if (!answered && !req.destroyed) req.end();
  return readResponse(await response);
}

/** One response read off a raw connection. */
export interface WireResponse {
  status: number;
  headers: Record<string, string>;
  text: string;
  body: unknown;
}

/** Parses the whole responses at the start of `data`; returns them and the bytes left over. */
function parseResponses(data: Buffer): { responses: WireResponse[]; rest: Buffer } {
  const responses: WireResponse[] = [];
  let rest = data;
  for (;;) {
    const end = rest.indexOf('\r\n\r\n');
    if (end < 0) break;
    const [statusLine = '', ...lines] = rest.subarray(0, end).toString('latin1').split('\r\n');
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    let body = rest.subarray(end + 4);
    let text: string;
    if (headers['transfer-encoding'] === 'chunked') {
      const chunks: Buffer[] = [];
      let complete = false;
      for (;;) {
        const lineEnd = body.indexOf('\r\n');
        if (lineEnd < 0) break;
        const size = parseInt(body.subarray(0, lineEnd).toString('latin1'), 16);
        if (body.length < lineEnd + 2 + size + 2) break;
        chunks.push(body.subarray(lineEnd + 2, lineEnd + 2 + size));
        body = body.subarray(lineEnd + 2 + size + 2);
        if (size === 0) {
          complete = true;
          break;
        }
      }
      if (!complete) break;
      text = Buffer.concat(chunks).toString('utf8');
    } else {
      const length = Number(headers['content-length'] ?? 0);
      if (body.length < length) break;
      text = body.subarray(0, length).toString('utf8');
      body = body.subarray(length);
    }
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // not JSON
    }
    responses.push({ status: Number(statusLine.split(' ')[1]), headers, text, body: parsed });
    rest = body;
  }
  return { responses, rest };
}

/**
 * Writes raw bytes on one connection (node:net, so nothing is fixed up on the way) and reads the
 * responses until `expected` have arrived or the server closes. `closed` tells whether it did.
 */
export function rawHttp(url: string, writes: Array<string | Buffer>, expected: number): Promise<{ responses: WireResponse[]; closed: boolean; error?: string }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect(Number(port), hostname);
    let data = Buffer.alloc(0);
    let error: string | undefined;
    const done = (closed: boolean) => {
      socket.destroy();
      resolve({ responses: parseResponses(data).responses, closed, ...(error ? { error } : {}) });
    };
    socket.on('data', (chunk: Buffer) => {
      data = Buffer.concat([data, chunk]);
      if (parseResponses(data).responses.length >= expected) done(false);
    });
    socket.on('error', (err: NodeJS.ErrnoException) => (error = err.code ?? err.message));
    socket.on('close', () => done(true));
    for (const write of writes) socket.write(write);
  });
}

export interface LogLine {
  level: number;
  msg: string;
  [field: string]: unknown;
}

/** The real server (`node --import tsx src/main.ts`) as a child process, its pino lines parsed. */
export class ServerProcess {
  readonly child: ChildProcess;
  /** The pino lines of stdout, parsed, in order. */
  readonly logged = new Recorded<LogLine>('server log', (line) => line.msg);
  readonly stdout: string[] = [];
  stderr = '';
  /** Resolves with the exit code and signal once the process has exited. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;

  constructor(env: Record<string, string>) {
    const inherited = { ...process.env };
    // Only the variables a test passes configure the gateway.
    for (const name of Object.keys(inherited)) {
      if (/^(PORT|HOST|DATA_DIR|DATABASE_URL|HTTP_GATEWAY_API_KEY|PUBLIC_URL|WEBHOOK_URL|DOCS_URL|INCOMING_STREAM_\w+|ASSISTANT_\w+|WEBHOOK_\w+|ADMIN_\w+|SECRET_\w+|LOG_LEVEL)$/.test(name)) {
        delete inherited[name];
      }
    }
    this.child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      cwd: REPO_ROOT,
      env: { ...inherited, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.exited = once(this.child, 'exit').then(([code, signal]) => ({ code: code as number | null, signal: signal as NodeJS.Signals | null }));
    this.child.stderr?.setEncoding('utf8').on('data', (text: string) => (this.stderr += text));
    createInterface({ input: this.child.stdout! }).on('line', (text) => {
      this.stdout.push(text);
      let line: LogLine;
      try {
        line = JSON.parse(text) as LogLine;
      } catch {
        return;
      }
      this.logged.add(line);
    });
    // As before: a wait still pending when the process exits fails then, naming what it printed.
    void this.exited.then(({ code, signal }) => this.logged.end(`server exited (code ${code}, signal ${signal}); stderr: ${this.stderr}; stdout: ${this.stdout.join('\n')}`));
  }

  get lines(): LogLine[] {
    return this.logged.items;
  }

  /**
   * The first log line with this message (or that passes the test); fails if the process exits
   * first, or (a bound of ours, just under the runner's 20 s) after `timeoutMs`.
   */
  waitForLog(match: string | ((line: LogLine) => boolean), timeoutMs = 19_000): Promise<LogLine> {
    const test = typeof match === 'string' ? (line: LogLine) => line.msg === match : match;
    return this.logged.next(test, { timeoutMs, what: typeof match === 'string' ? `"${match}"` : 'the line awaited' });
  }

  /** Waits for "gateway listening" and returns the URL it logged. */
  async listening(): Promise<string> {
    const line = await this.waitForLog('gateway listening');
    return String(line.url);
  }

  /** Kills the process if a test left it running. */
  async kill(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) {
      this.child.kill('SIGKILL');
      await this.exited;
    }
  }
}
