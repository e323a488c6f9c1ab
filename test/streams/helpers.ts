import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import WebSocket, { WebSocketServer } from 'ws';
import { FRAME_BYTES } from '../../src/audio/index.js';
import { STAMP_BYTES, toneSource, type PhoneSimulator } from '../../src/simulator/index.js';
import type { Endpoint, TestGateway } from '../helpers/gateway.js';
import { callInState, openSocket, pairCredentials, phoneEvent, show, type Call, type RawPhone, type Scope } from '../helpers/phones.js';
import { Recorded } from '../helpers/waits.js';

// Protocol messages are read field by field in assertions; `unknown` would only add casts.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = Record<string, any>;

/** Tone the simulated remote party speaks in these tests. */
export const TONE = { kind: 'tone', frequency: 440, amplitude: 0.3 } as const;

/** The 640-byte frame number `seq` of the tone the simulator sends (a fresh source per call). */
export function toneFrames(count: number): Buffer[] {
  const src = toneSource(TONE.frequency, TONE.amplitude);
  const frames: Buffer[] = [];
  for (let i = 0; i < count; i++) {
    const f = Buffer.alloc(FRAME_BYTES);
    src.fill(f);
    frames.push(f);
  }
  return frames;
}

/** Frames minus their stamp bytes (what a stamped frame has in common with the tone). */
export const unstamped = (frame: Buffer): Buffer => frame.subarray(STAMP_BYTES);

/** One socket the gateway opened to a fake agent (or a media socket the test opened). */
export class PeerSocket {
  /** Text messages parsed as JSON, with their arrival time (performance.now()). */
  readonly json = new Recorded<{ msg: Json; at: number; index: number }>('peer text messages', (i) => JSON.stringify(i.msg).slice(0, 160));
  /** Binary messages with arrival time. */
  readonly binary = new Recorded<{ data: Buffer; at: number; index: number }>('peer binary messages', (i) => `${i.data.length} bytes`);
  /** Raw text of every text message, in order. */
  readonly texts: string[] = [];
  readonly closed: Promise<{ code: number; reason: string }>;
  private count = 0;

  constructor(
    readonly ws: WebSocket,
    readonly req?: IncomingMessage,
  ) {
    ws.on('message', (data, isBinary) => {
      const at = performance.now();
      const index = this.count++;
      const buf = Buffer.isBuffer(data) ? data : Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data);
      if (isBinary) {
        this.binary.add({ data: buf, at, index });
        return;
      }
      const text = buf.toString('utf8');
      this.texts.push(text);
      let msg: Json;
      try {
        msg = JSON.parse(text) as Json;
      } catch {
        msg = { unparsable: text };
      }
      this.json.add({ msg, at, index });
    });
    ws.on('error', () => {});
    this.closed = new Promise((resolve) => ws.once('close', (code, reason) => resolve({ code, reason: reason.toString('utf8') })));
  }

  get messages(): Json[] {
    return this.json.items.map((i) => i.msg);
  }

  /** A JSON message matching `test` (already received or still to come). */
  async message(test: (m: Json) => boolean, timeoutMs = 5000): Promise<Json> {
    return (await this.json.next((i) => test(i.msg), { timeoutMs, what: 'peer message' })).msg;
  }

  async messageAt(test: (m: Json) => boolean, timeoutMs = 5000): Promise<{ msg: Json; at: number }> {
    return this.json.next((i) => test(i.msg), { timeoutMs, what: 'peer message' });
  }

  /** Resolves once `count` binary frames have arrived; returns all of them. */
  async frames(count: number, timeoutMs = 5000): Promise<Buffer[]> {
    if (count > 0) await this.binary.nth(count - 1, undefined, { timeoutMs, what: `${count} binary frames` });
    return this.binary.items.map((b) => b.data);
  }

  send(message: object): void {
    this.ws.send(JSON.stringify(message));
  }

  sendBinary(data: Buffer): void {
    this.ws.send(data, { binary: true });
  }

  get open(): boolean {
    return this.ws.readyState === WebSocket.OPEN;
  }

  async close(code = 1000): Promise<void> {
    if (this.ws.readyState === WebSocket.CLOSED) return;
    if (this.ws.readyState !== WebSocket.CLOSING) this.ws.close(code);
    const timer = setTimeout(() => this.ws.terminate(), 1000);
    await this.closed;
    clearTimeout(timer);
  }
}

/** A local agent: a `ws` server on 127.0.0.1:0 recording every connection the gateway makes. */
export class FakeAgent {
  readonly connections = new Recorded<PeerSocket>('agent connections', (c) => c.req?.url ?? 'a connection');
  private constructor(
    private readonly wss: WebSocketServer,
    readonly url: string,
  ) {
    wss.on('connection', (ws, req) => this.connections.add(new PeerSocket(ws, req)));
  }

  /** `autoPong: false` makes an agent whose connection silently drops everything: it never answers a ping. */
  static async start(pathname = '/agent', options: { autoPong?: boolean } = {}): Promise<FakeAgent> {
    const wss = new WebSocketServer({ host: '127.0.0.1', port: 0, perMessageDeflate: false, ...options });
    await new Promise<void>((resolve) => wss.once('listening', resolve));
    const { port } = wss.address() as AddressInfo;
    return new FakeAgent(wss, `ws://127.0.0.1:${port}${pathname}`);
  }

  get count(): number {
    return this.connections.items.length;
  }

  /** The `n`-th connection (0-based), awaited. */
  connection(n = 0, timeoutMs = 5000): Promise<PeerSocket> {
    return this.connections.nth(n, undefined, { timeoutMs, what: `agent connection #${n}` });
  }

  async close(): Promise<void> {
    for (const c of this.connections.items) c.ws.terminate();
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
  }
}

/** An HTTP server that refuses every WebSocket upgrade with HTTP 500. */
export async function refusingServer(): Promise<{ url: string; upgrades: number; close(): Promise<void> }> {
  const state = { upgrades: 0 };
  const server: Server = createServer((_req, res) => res.writeHead(500).end('no'));
  server.on('upgrade', (_req, socket) => {
    state.upgrades += 1;
    socket.end('HTTP/1.1 500 Internal Server Error\r\nContent-Type: text/plain\r\nContent-Length: 4\r\nConnection: close\r\n\r\nboom');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `ws://127.0.0.1:${port}/agent`,
    get upgrades() {
      return state.upgrades;
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

let refusingPort: number | undefined;

/**
 * A loopback port nothing listens on. A privileged one (below 1024): no test process can take it,
 * whereas an ephemeral port bound and released may be taken by another test file of a busy run
 * before it is used (CI saw exactly that once).
 */
export async function closedPort(): Promise<number> {
  if (refusingPort !== undefined) return refusingPort;
  for (let port = 1; port < 1024; port += 1) {
    if (await refuses(port)) return (refusingPort = port);
  }
  throw new Error('no loopback port below 1024 refuses connections');
}

function refuses(port: number): Promise<boolean> {
  return connectError(`tcp://127.0.0.1:${port}`).then((error) => error?.code === 'ECONNREFUSED');
}

/** The error of a fresh TCP connection to url's host and port (ETIMEDOUT after a second), or null if it connects. */
export function connectError(url: string): Promise<NodeJS.ErrnoException | null> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect({ host: hostname, port: Number(port) });
    socket.setTimeout(1000, () => {
      socket.destroy();
      resolve(Object.assign(new Error('no answer within 1 s'), { code: 'ETIMEDOUT' }));
    });
    socket.once('connect', () => {
      socket.destroy();
      resolve(null);
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error));
  });
}

export async function agent(scope: Scope, { pathname = '/agent', ...options }: { autoPong?: boolean; pathname?: string } = {}): Promise<FakeAgent> {
  return scope.track(await FakeAgent.start(pathname, options));
}

/** POST /v1/calls from the phone; returns the call. */
export async function placeCall(gateway: Endpoint, phone: PhoneSimulator, extra: Json = {}): Promise<{ call: Call; media: Json }> {
  const res = await gateway.api<{ call: Call; media: Json }>('POST', '/v1/calls', { deviceId: phone.deviceId, to: '+15550100', ...extra });
  if (res.status !== 202) throw new Error(`POST /v1/calls: ${show(res)}`);
  return res.body;
}

export interface StreamInfoBody {
  stream: Json | null;
  status: string;
  error?: string;
  hint?: string;
}

export async function streamInfo(gateway: Endpoint, callId: string): Promise<StreamInfoBody> {
  const res = await gateway.api<StreamInfoBody>('GET', `/v1/calls/${callId}/stream`);
  if (res.status !== 200) throw new Error(`GET stream: ${show(res)}`);
  return res.body;
}

/** What an upgrade of a media socket ended with. */
export type MediaOutcome = { ok: true; peer: PeerSocket } | { ok: false; status: number; body: unknown };

export async function openMedia(gateway: Endpoint, callId: string, headers: Record<string, string>, options: WebSocket.ClientOptions = {}): Promise<MediaOutcome> {
  const url = `${gateway.url.replace(/^http/, 'ws')}/v1/calls/${encodeURIComponent(callId)}/media`;
  let peer: PeerSocket | undefined;
  // Record from the first message on: the start message may come right with the upgrade.
  const outcome = await openSocket(url, headers, options, (ws) => (peer = new PeerSocket(ws)));
  return outcome.ok && peer ? { ok: true, peer } : outcome.ok ? { ok: false, status: 0, body: 'no socket' } : outcome;
}

/** s16le PCM of `samples` samples, every one `value`. */
export function constantPcm(samples: number, value: number): Buffer {
  const buf = Buffer.alloc(samples * 2);
  for (let i = 0; i < samples; i++) buf.writeInt16LE(value, i * 2);
  return buf;
}

/** s16le PCM of a ramp that never holds a zero sample, so silence padding can be told apart. */
export function rampPcm(samples: number, start = 1): Buffer {
  const buf = Buffer.alloc(samples * 2);
  for (let i = 0; i < samples; i++) {
    let v = ((start + i * 37) % 30000) - 15000;
    if (v === 0) v = 1;
    buf.writeInt16LE(v, i * 2);
  }
  return buf;
}

/** The samples of `pcm` that are not zero. */
export function nonZeroSamples(pcm: Buffer): number[] {
  const out: number[] = [];
  for (let i = 0; i + 1 < pcm.length; i += 2) {
    const v = pcm.readInt16LE(i);
    if (v !== 0) out.push(v);
  }
  return out;
}

export function samples(pcm: Buffer): number[] {
  const out: number[] = [];
  for (let i = 0; i + 1 < pcm.length; i += 2) out.push(pcm.readInt16LE(i));
  return out;
}

/** A gateway, a phone that answers at once, and a call streamed in raw format to a fake agent: started and active. */
export async function liveRawCall(
  t: Scope,
  phoneOptions: Parameters<Scope['phone']>[1] = {},
  gatewayOptions: Parameters<Scope['gateway']>[0] = {},
): Promise<{ g: TestGateway; phone: PhoneSimulator; a: FakeAgent; conn: PeerSocket; call: Call }> {
  const g = await t.gateway(gatewayOptions);
  const phone = await t.phone(g, { dial: { outcome: 'answer', ringMs: 20 }, ...phoneOptions });
  const a = await agent(t);
  const { call } = await placeCall(g, phone, { stream: { url: a.url } });
  const conn = await a.connection();
  await conn.message((m) => m.type === 'start');
  await callInState(g, call.id, 'active');
  return { g, phone, a, conn, call };
}

/**
 * An incoming call made active by a phone spoken by hand (RawPhone), so a test can send the gateway
 * any binary frames it likes, at any pace.
 */
export async function rawPhoneCall(t: Scope, g: TestGateway): Promise<{ phone: RawPhone; deviceId: string; callId: string }> {
  const creds = await pairCredentials(g);
  const phone = await t.raw(g, creds.deviceToken);
  const nativeCallId = `native-${randomUUID()}`;
  const ringing = await phone.event(phoneEvent('call.ringing', nativeCallId, { direction: 'incoming', remoteNumber: '+4930550' }));
  const callId = String(ringing.callId);
  await phone.event(phoneEvent('call.active', nativeCallId, { callId }));
  return { phone, deviceId: creds.deviceId, callId };
}
