import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { DEFAULT_WAIT_MS, Recorded, until } from '../helpers/waits.js';

/**
 * The gateway side of phone-protocol.md, just enough to test the simulator (src/simulator): the
 * pairing endpoint, the phone socket with token check, welcome, event.ack (naming incoming calls)
 * and commands.
 */

export type Json = Record<string, unknown>;

export interface PhoneMsg {
  conn: number;
  at: number;
  msg: Json;
}

export interface PairRequestRecord {
  method: string;
  path: string;
  contentType: string | undefined;
  authorization: string | undefined;
  body: unknown;
}

export class FakePhoneSocket {
  readonly frames: Buffer[] = [];
  readonly frameTimes: number[] = [];
  constructor(
    readonly index: number,
    readonly ws: WebSocket,
    readonly deviceId: string,
  ) {}

  send(msg: Json): void {
    this.ws.send(JSON.stringify(msg));
  }
}

export class FakeGateway {
  readonly pairRequests: PairRequestRecord[] = [];
  /** Every text message of every phone socket, in arrival order. */
  readonly received = new Recorded<PhoneMsg>('fake gateway', (e) => `${e.conn}:${String(e.msg['type'])}`);
  readonly sockets: FakePhoneSocket[] = [];
  /** Problems with the order of the phone's messages. */
  readonly violations: string[] = [];
  /** Event ids stored, each once. */
  readonly storedEvents: Json[] = [];
  autoAckEvents = true;
  pairingCode = 'CODE-1234';
  upgradeRefusals = 0;
  private readonly tokens = new Map<string, string>();
  private readonly callIdsByNative = new Map<string, string>();
  /** Called on every phone message, frame, refused upgrade and socket change. */
  private readonly listeners = new Set<() => void>();
  private nextCall = 1;
  private url = '';

  private constructor(
    private readonly server: Server,
    private readonly wss: WebSocketServer,
  ) {}

  static async start(): Promise<FakeGateway> {
    const wss = new WebSocketServer({ noServer: true });
    const server = createServer();
    const gw = new FakeGateway(server, wss);
    server.on('request', (req, res) => void gw.onRequest(req, res));
    server.on('upgrade', (req, socket, head) => gw.onUpgrade(req, socket, head));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    gw.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return gw;
  }

  get httpUrl(): string {
    return this.url;
  }

  /** The most recent socket. */
  get current(): FakePhoneSocket {
    const s = this.sockets.at(-1);
    if (!s) throw new Error('no phone socket yet');
    return s;
  }

  /** Registers a device without pairing. */
  issueDevice(): { deviceId: string; deviceToken: string } {
    const creds = { deviceId: `phone-${randomBytes(6).toString('hex')}`, deviceToken: `dt_${randomBytes(16).toString('hex')}` };
    this.tokens.set(creds.deviceToken, creds.deviceId);
    return creds;
  }

  revokeToken(token: string): void {
    this.tokens.delete(token);
  }

  /** The phone messages so far, in order. */
  get messages(): PhoneMsg[] {
    return this.received.items;
  }

  messagesOf(type: string): Json[] {
    return this.messages.filter((m) => m.msg['type'] === type).map((m) => m.msg);
  }

  /** The first phone message from index `after` on that matches, now or when it arrives. */
  async waitForMessage(pred: (m: Json, entry: PhoneMsg) => boolean, opts: { after?: number; timeoutMs?: number } = {}): Promise<Json> {
    const { after = 0, timeoutMs = DEFAULT_WAIT_MS } = opts;
    return (await this.received.next((e) => pred(e.msg, e), { from: after, timeoutMs, what: 'matching phone message' })).msg;
  }

  /** Resolves once `probe` returns a value; probed on every phone message, frame and socket change. */
  async until<T>(probe: () => T | undefined, timeoutMs = DEFAULT_WAIT_MS): Promise<T> {
    const wake = (poke: () => void): (() => void) => {
      this.listeners.add(poke);
      return () => this.listeners.delete(poke);
    };
    return (await until(probe, (v) => v !== undefined, { timeoutMs, what: 'fake gateway condition', wake })) as T;
  }

  /** Sends a command to the current socket; resolves with the phone's ack. */
  async command(action: string, callId: string, payload: Json = {}): Promise<Json> {
    const commandId = randomUUID();
    this.current.send({ type: 'command', commandId, callId, action, payload });
    return this.waitForMessage((m) => m['type'] === 'ack' && m['commandId'] === commandId);
  }

  sendCommandNoWait(action: string, callId: string, payload: Json = {}): string {
    const commandId = randomUUID();
    this.current.send({ type: 'command', commandId, callId, action, payload });
    return commandId;
  }

  ackEvent(eventId: string, callId: string): void {
    this.current.send({ type: 'event.ack', eventId, callId });
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.ws.terminate();
    this.wss.close();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private notify(): void {
    for (const listener of [...this.listeners]) listener();
  }

  private async onRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const reply = (status: number, body: Json): void => {
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    };
    if (req.method !== 'POST' || req.url !== '/v1/phone/pair') return reply(404, { error: { code: 'NOT_FOUND', message: 'no route' } });
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    this.pairRequests.push({
      method: req.method,
      path: req.url,
      contentType: req.headers['content-type'],
      authorization: req.headers.authorization,
      body,
    });
    const b = (body ?? {}) as Json;
    if (typeof b['code'] !== 'string' || typeof b['name'] !== 'string') {
      return reply(400, { error: { code: 'VALIDATION_ERROR', message: 'code and name are required', issues: [] } });
    }
    if (b['code'] !== this.pairingCode) return reply(401, { error: { code: 'UNAUTHORIZED', message: 'unknown or used pairing code' } });
    this.pairingCode = `used-${randomUUID()}`;
    reply(200, this.issueDevice());
  }

  private onUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    const deviceId = token ? this.tokens.get(token) : undefined;
    if (req.url !== '/v1/phone' || !deviceId) {
      this.upgradeRefusals++;
      const body = JSON.stringify({ error: { code: 'UNAUTHORIZED', message: 'missing or invalid device token' } });
      socket.end(
        `HTTP/1.1 401 Unauthorized\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      );
      this.notify();
      return;
    }
    this.wss.handleUpgrade(req, socket, head, (ws) => this.onSocket(ws, deviceId));
  }

  private onSocket(ws: WebSocket, deviceId: string): void {
    for (const old of this.sockets) {
      if (old.deviceId === deviceId && old.ws.readyState === old.ws.OPEN) old.ws.close(4000, 'replaced');
    }
    const sock = new FakePhoneSocket(this.sockets.length, ws, deviceId);
    this.sockets.push(sock);
    let count = 0;
    ws.on('message', (data, isBinary) => {
      const buf = data as Buffer;
      if (isBinary) {
        sock.frames.push(buf);
        sock.frameTimes.push(performance.now());
        this.notify();
        return;
      }
      const msg = JSON.parse(buf.toString('utf8')) as Json;
      if (count === 0 && msg['type'] !== 'hello') this.violations.push(`first message was ${String(msg['type'])}`);
      count++;
      this.received.add({ conn: sock.index, at: performance.now(), msg });
      if (msg['type'] === 'hello') sock.send({ type: 'welcome', deviceId, serverTime: new Date().toISOString() });
      if (msg['type'] === 'event') this.onEvent(sock, msg);
      this.notify();
    });
    ws.on('close', () => this.notify());
    this.notify();
  }

  private onEvent(sock: FakePhoneSocket, msg: Json): void {
    const eventId = String(msg['eventId']);
    if (!this.storedEvents.some((e) => e['eventId'] === eventId)) this.storedEvents.push(msg);
    if (!this.autoAckEvents) return;
    const nativeCallId = String(msg['nativeCallId']);
    let callId = typeof msg['callId'] === 'string' ? msg['callId'] : this.callIdsByNative.get(nativeCallId);
    if (!callId) {
      callId = `call-in-${this.nextCall++}`;
      this.callIdsByNative.set(nativeCallId, callId);
    }
    sock.send({ type: 'event.ack', eventId, callId });
  }
}

/** Sign changes of s16le samples. */
export function zeroCrossings(pcm: Buffer): number {
  let n = 0;
  let prev = 0;
  for (let i = 0; i + 1 < pcm.length; i += 2) {
    const s = pcm.readInt16LE(i);
    if (s === 0) continue;
    if (prev !== 0 && Math.sign(s) !== Math.sign(prev)) n++;
    prev = s;
  }
  return n;
}
