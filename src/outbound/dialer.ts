import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocket } from 'ws';
import { OutboundRefusedError, type OutboundPolicy } from './policy.js';

/**
 * Why a dial failed, by kind, for each caller to word its own way. `message` is the error's own text
 * as Node or `ws` gave it (not redacted: a caller with a secret in the URL or headers redacts it).
 */
export type DialFailure =
  /** The URL cannot be dialled (not a URL, not ws:, wss:, http: or https:, a fragment). */
  | { kind: 'invalid-url'; message: string }
  /** The outbound rules refused the address: a literal at once, a name once resolved. */
  | { kind: 'not-allowed'; message: string }
  /** The name was not found (ENOTFOUND, EAI_AGAIN, EAI_NONAME). */
  | { kind: 'dns'; message: string; code: string }
  /** The connection was closed or reset before the upgrade was answered (ECONNRESET, socket hang up). */
  | { kind: 'closed'; message: string; code: string | undefined }
  /** Any other error before the socket opened: refused (ECONNREFUSED), unreachable, TLS, a bad handshake answer. */
  | { kind: 'error'; message: string; code: string | undefined }
  /** The server answered the upgrade with something other than 101; `body` is the first bytes of its answer. */
  | { kind: 'upgrade-refused'; status: number | undefined; body: string }
  /** Not open within the handshake timeout (name, TCP, TLS and the upgrade together). */
  | { kind: 'timeout'; afterMs: number }
  /** The caller's signal gave the attempt up. */
  | { kind: 'aborted' };

export type DialOutcome =
  | { ok: true; socket: WebSocket; /** The TCP (or TLS) socket under it, for holding writes (BoundedWriter). */ transport: Duplex }
  | { ok: false; failure: DialFailure };

/** What `dial` returns: the socket being dialled, or what failed before anything was sent. */
export type Dialling = { ok: true; socket: WebSocket } | { ok: false; failure: DialFailure };

export interface DialOptions {
  /** Headers of the upgrade request (an agent's signature, a model's key). */
  headers: Record<string, string>;
  /** Which addresses may be dialled; any, without it. */
  policy?: OutboundPolicy | undefined;
  /** Covers the name, TCP, TLS and the upgrade (and reading a refused upgrade's body), together. */
  handshakeTimeoutMs: number;
  /** The largest message the peer may send; a larger one closes the socket (1009). */
  maxPayload: number;
  /**
   * How much of a refused upgrade's body to keep: the failure waits for the body's end (or the
   * timeout) and carries its first bytes. 0, the default: it is told at the status line.
   */
  refusedBodyBytes?: number;
  signal?: AbortSignal | undefined;
}

const DNS_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_NONAME']);

function errorFailure(err: Error & { code?: string }): DialFailure {
  const { message, code } = err;
  if (err instanceof OutboundRefusedError || code === 'OUTBOUND_REFUSED') return { kind: 'not-allowed', message };
  if (code !== undefined && DNS_CODES.has(code)) return { kind: 'dns', message, code };
  if (code === 'ECONNRESET' || message === 'socket hang up') return { kind: 'closed', message, code };
  return { kind: 'error', message, code };
}

/**
 * Opens a WebSocket to `url` under the outbound rules: the one way the gateway dials out (agent
 * streams, the assistant's model). What fails before anything is sent (an aborted signal, a URL
 * that cannot be dialled, an address literal the rules refuse) is returned at once; otherwise the
 * socket being dialled is returned, and `done` is called once with the outcome. An open socket is
 * handed over inside its `open` event, before it can read anything: listeners added in `done` miss
 * no message. A failed attempt's socket is terminated before `done` hears of it; terminating the
 * returned socket gives the attempt up (`done` then hears an error, as from `ws`).
 */
export function dial(url: string, o: DialOptions, done: (outcome: DialOutcome) => void): Dialling {
  if (o.signal?.aborted) return { ok: false, failure: { kind: 'aborted' } };
  let socket: WebSocket;
  try {
    const guard = o.policy?.socketOptions(url);
    socket = new WebSocket(url, { ...guard, headers: o.headers, perMessageDeflate: false, maxPayload: o.maxPayload });
  } catch (err) {
    // The rules' refusal of a literal, or `ws` (and the URL parser) refusing the URL itself.
    if (err instanceof OutboundRefusedError) return { ok: false, failure: { kind: 'not-allowed', message: err.message } };
    return { ok: false, failure: { kind: 'invalid-url', message: (err as Error).message } };
  }
  watch(socket, o, done);
  return { ok: true, socket };
}

/** Follows one dial to its outcome; each path out goes through `settle`, once. */
function watch(socket: WebSocket, o: DialOptions, done: (outcome: DialOutcome) => void): void {
  const { signal } = o;
  let transport: Duplex | undefined;
  let settled = false;
  const settle = (outcome: DialOutcome): void => {
    if (settled) return;
    settled = true;
    clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort);
    socket.off('error', onError);
    if (!outcome.ok) {
      // terminate() during the handshake reports an error of its own; nobody needs it.
      socket.on('error', () => {});
      socket.terminate();
    }
    done(outcome);
  };
  const timer = setTimeout(() => settle({ ok: false, failure: { kind: 'timeout', afterMs: o.handshakeTimeoutMs } }), o.handshakeTimeoutMs);
  const onAbort = (): void => settle({ ok: false, failure: { kind: 'aborted' } });
  signal?.addEventListener('abort', onAbort, { once: true });
  const onError = (err: Error): void => settle({ ok: false, failure: errorFailure(err) });
  socket.on('error', onError);
  socket.once('unexpected-response', (_req, res: IncomingMessage) => refused(res, o.refusedBodyBytes ?? 0, (body) => settle({ ok: false, failure: { kind: 'upgrade-refused', status: res.statusCode, body } })));
  socket.once('upgrade', (res) => (transport = res.socket));
  socket.once('open', () => {
    // `ws` emits `upgrade` before `open`, always; without the TCP socket no write could be bounded.
    if (!transport) return settle({ ok: false, failure: { kind: 'closed', message: 'the socket opened without an upgrade', code: undefined } });
    settle({ ok: true, socket, transport });
  });
}

/** Reads up to `keep` bytes of a refused upgrade's body, then calls `told` with them (at once when `keep` is 0). */
function refused(res: IncomingMessage, keep: number, told: (body: string) => void): void {
  if (keep <= 0) return told('');
  const chunks: Buffer[] = [];
  let size = 0;
  const end = (): void => told(Buffer.concat(chunks).toString('utf8'));
  res.on('data', (chunk: Buffer) => {
    if (size < keep) chunks.push(chunk);
    size += chunk.length;
  });
  res.once('end', end);
  res.once('error', end);
}
