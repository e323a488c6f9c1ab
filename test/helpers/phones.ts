import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach } from 'vitest';
import WebSocket from 'ws';
import { PhoneSimulator, type EventMessage, type PhoneEventName, type PhoneSimulatorOptions } from '../../src/simulator/index.js';
import type { Call, CallEvent } from '../../src/calls/index.js';
import type { Device, Pairing } from '../../src/phones/index.js';
import type { WebhookBody, WebhookDelivery as Delivery } from '../../src/webhooks/index.js';
import { startTestGateway, type ApiResponse, type Endpoint, type TestGateway } from './gateway.js';

/** Prints a response for assertion messages. */
export const show = (res: Pick<ApiResponse, 'status' | 'text'>): string => `${res.status} ${res.text.slice(0, 600)}`;

// ---- the REST shapes the tests read ---------------------------------------------------------

export type { Call, CallEvent, Delivery, Device, Pairing };
export type { Command } from '../../src/phones/index.js';

export interface ErrorBody {
  error: { code: string; message: string; issues?: Array<{ path: string; message: string }> };
}

// ---- waiting without sleeping ---------------------------------------------------------------

/**
 * Polls `read` until `done` holds (a short bounded loop, for states that raise no event the test can
 * hear); fails with the last value seen.
 */
export async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, { timeoutMs = 5000, intervalMs = 15, what = 'condition' } = {}): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: T = await read();
  while (!done(last)) {
    if (Date.now() > deadline) throw new Error(`${what} not reached within ${timeoutMs} ms; last value: ${JSON.stringify(last)?.slice(0, 800)}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
    last = await read();
  }
  return last;
}

/** The call as GET /v1/calls/{callId} shows it. */
export async function getCall(gateway: Endpoint, callId: string): Promise<Call> {
  const res = await gateway.api<{ call: Call }>('GET', `/v1/calls/${callId}`);
  if (res.status !== 200) throw new Error(`GET call ${callId}: ${show(res)}`);
  return res.body.call;
}

export async function getEvents(gateway: Endpoint, callId: string): Promise<CallEvent[]> {
  const res = await gateway.api<{ events: CallEvent[] }>('GET', `/v1/calls/${callId}/events`);
  if (res.status !== 200) throw new Error(`GET events of ${callId}: ${show(res)}`);
  return res.body.events;
}

export async function getDevice(gateway: Endpoint, deviceId: string): Promise<Device> {
  const res = await gateway.api<{ device: Device }>('GET', `/v1/devices/${deviceId}`);
  if (res.status !== 200) throw new Error(`GET device ${deviceId}: ${show(res)}`);
  return res.body.device;
}

export async function getDeliveries(gateway: Endpoint, query = ''): Promise<Delivery[]> {
  const res = await gateway.api<{ deliveries: Delivery[] }>('GET', `/v1/webhook-deliveries${query}`);
  if (res.status !== 200) throw new Error(`GET webhook-deliveries${query}: ${show(res)}`);
  return res.body.deliveries;
}

/** Polls the call until it is in `state`. */
export const callInState = (gateway: Endpoint, callId: string, state: Call['state'], timeoutMs = 5000): Promise<Call> =>
  eventually(() => getCall(gateway, callId), (c) => c.state === state, { timeoutMs, what: `call ${callId} ${state}` });

/**
 * Waits until the simulator's first event named `event` created after index `from` of `sim.events`
 * has been acknowledged by the gateway (so the gateway has stored it), and returns it.
 */
export async function acked(sim: PhoneSimulator, event: PhoneEventName, from = 0, timeoutMs = 5000): Promise<EventMessage> {
  let found: EventMessage | undefined;
  await sim.waitFor((s) => {
    found = s.events.slice(from).find((e) => e.event === event);
    return found !== undefined && !s.outbox.some((o) => o.eventId === found?.eventId);
  }, timeoutMs);
  return found!;
}

// ---- phones ------------------------------------------------------------------------------------


export async function pairingCode(gateway: Endpoint): Promise<string> {
  const res = await gateway.api<Pairing>('POST', '/v1/pairing', { publicUrl: gateway.url });
  if (res.status !== 200) throw new Error(`POST /v1/pairing: ${show(res)}`);
  return res.body.code;
}

/** Pairs a phone through REST and returns its credentials. */
export async function pairCredentials(gateway: Endpoint, name = 'Raw phone'): Promise<{ deviceId: string; deviceToken: string }> {
  const code = await pairingCode(gateway);
  const res = await gateway.api<{ deviceId: string; deviceToken: string }>('POST', '/v1/phone/pair', { code, name }, { key: null });
  if (res.status !== 200) throw new Error(`POST /v1/phone/pair: ${show(res)}`);
  return res.body;
}

/**
 * A PhoneSimulator paired with the gateway through a fresh pairing code and, unless
 * `connect: false`, connected (resolved after `welcome`). Silent audio-less by default.
 */
export async function pairedPhone(gateway: Endpoint, options: Partial<PhoneSimulatorOptions> & { connect?: boolean } = {}): Promise<PhoneSimulator> {
  const { connect = true, ...rest } = options;
  const sim = new PhoneSimulator({
    gatewayUrl: gateway.url,
    name: 'Test phone',
    audio: { kind: 'none' },
    reconnectDelayMs: { initial: 30, max: 200 },
    dial: { outcome: 'answer', ringMs: 30 },
    ...rest,
  });
  await sim.pair(await pairingCode(gateway));
  if (connect) await sim.connect();
  return sim;
}

/** The device token a simulator paired with (it keeps it protected). */
export function deviceTokenOf(sim: PhoneSimulator): string {
  const credentials = (sim as unknown as { credentials: { deviceToken: string } | null }).credentials;
  if (!credentials) throw new Error('the simulator is not paired');
  return credentials.deviceToken;
}

/** A gateway message as a raw phone sees it. */
export type GatewayMessage = { type: string; [field: string]: unknown };

/** What an upgrade of `/v1/phone` ended with: an open socket, or the refusal. */
export type UpgradeOutcome = { ok: true; ws: WebSocket } | { ok: false; status: number; body: unknown };

export function phoneSocketUrl(gateway: Endpoint): string {
  return `${gateway.url.replace(/^http/, 'ws')}/v1/phone`;
}

/**
 * Opens a WebSocket and reports whether the upgrade was accepted or, if refused, its status and
 * error body. `onSocket` sees the socket before it opens, to record from the very first message.
 */
export function openSocket(url: string, headers: Record<string, string>, options: WebSocket.ClientOptions = {}, onSocket?: (ws: WebSocket) => void): Promise<UpgradeOutcome> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers, perMessageDeflate: false, ...options });
    onSocket?.(ws);
    ws.once('open', () => resolve({ ok: true, ws }));
    ws.once('unexpected-response', (_req, res: IncomingMessage) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: unknown = text;
        try {
          body = JSON.parse(text);
        } catch {
          // not JSON
        }
        ws.terminate();
        resolve({ ok: false, status: res.statusCode ?? 0, body });
      });
    });
    ws.once('error', (err) => reject(err));
  });
}

/** Opens `/v1/phone` with these headers and reports whether the upgrade was accepted. */
export function openPhoneSocket(gateway: Endpoint, headers: Record<string, string>, options: WebSocket.ClientOptions = {}): Promise<UpgradeOutcome> {
  return openSocket(phoneSocketUrl(gateway), headers, options);
}

/** A phone event as phone-protocol.md section 3 writes it, with a fresh eventId and occurredAt. */
export function phoneEvent(event: PhoneEventName, nativeCallId: string, extra: Record<string, unknown> = {}): { type: 'event'; eventId: string; event: PhoneEventName; nativeCallId: string } & Record<string, unknown> {
  return { type: 'event', eventId: randomUUID(), event, nativeCallId, occurredAt: new Date().toISOString(), payload: {}, ...extra };
}

/**
 * A phone spoken by hand over a raw `ws` socket: every message of the gateway is recorded and can be
 * awaited; nothing is answered unless the test does it.
 */
export class RawPhone {
  readonly messages: GatewayMessage[] = [];
  readonly closed: Promise<{ code: number; reason: string }>;
  private readonly waiters = new Set<{ test: (m: GatewayMessage) => boolean; resolve: (m: GatewayMessage) => void }>();

  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data, isBinary) => {
      if (isBinary) return;
      const msg = JSON.parse((data as Buffer).toString('utf8')) as GatewayMessage;
      this.messages.push(msg);
      for (const w of [...this.waiters]) {
        if (w.test(msg)) {
          this.waiters.delete(w);
          w.resolve(msg);
        }
      }
    });
    this.closed = new Promise((resolve) => ws.once('close', (code, reason) => resolve({ code, reason: reason.toString('utf8') })));
  }

  /** Opens the socket with the device token and, unless `hello` is false, says hello and waits for welcome. */
  static async connect(gateway: Endpoint, deviceToken: string, hello: Record<string, unknown> | false = {}, options: WebSocket.ClientOptions = {}): Promise<RawPhone> {
    const outcome = await openPhoneSocket(gateway, { authorization: `Bearer ${deviceToken}` }, options);
    if (!outcome.ok) throw new Error(`phone socket refused: ${outcome.status} ${JSON.stringify(outcome.body)}`);
    const phone = new RawPhone(outcome.ws);
    if (hello !== false) await phone.hello(hello);
    return phone;
  }

  /** Says hello and waits for the welcome (for a test that opened the socket with `hello` false). */
  async hello(hello: Record<string, unknown> = {}): Promise<GatewayMessage> {
    const welcome = this.next((m) => m.type === 'welcome');
    this.send({ type: 'hello', appVersion: 'raw-1', ...hello });
    return welcome;
  }

  get open(): boolean {
    return this.ws.readyState === WebSocket.OPEN;
  }

  send(message: object): void {
    this.ws.send(JSON.stringify(message));
  }

  sendText(text: string): void {
    this.ws.send(text);
  }

  /** The first message, already received or still to come, that passes `test`. */
  next(test: (m: GatewayMessage) => boolean, timeoutMs = 5000): Promise<GatewayMessage> {
    const seen = this.messages.find(test);
    if (seen) return Promise.resolve(seen);
    return this.nextNew(test, timeoutMs);
  }

  /** The next message still to come that passes `test`. */
  nextNew(test: (m: GatewayMessage) => boolean, timeoutMs = 5000): Promise<GatewayMessage> {
    return new Promise((resolve, reject) => {
      const waiter = {
        test,
        resolve: (m: GatewayMessage) => {
          clearTimeout(timer);
          resolve(m);
        },
      };
      const timer = setTimeout(() => {
        this.waiters.delete(waiter);
        reject(new Error(`raw phone: no matching message within ${timeoutMs} ms; got ${JSON.stringify(this.messages).slice(-800)}`));
      }, timeoutMs);
      this.waiters.add(waiter);
    });
  }

  /** All `event.ack`s of this eventId received so far. */
  acksOf(eventId: string): GatewayMessage[] {
    return this.messages.filter((m) => m.type === 'event.ack' && m.eventId === eventId);
  }

  /** Resolves once `count` acks of the eventId have arrived; returns the last. */
  async ack(eventId: string, count = 1, timeoutMs = 5000): Promise<GatewayMessage> {
    while (this.acksOf(eventId).length < count) await this.nextNew((m) => m.type === 'event.ack' && m.eventId === eventId, timeoutMs);
    return this.acksOf(eventId)[count - 1]!;
  }

  /** Sends an event and waits for its ack. */
  async event(message: { eventId: string } & Record<string, unknown>): Promise<GatewayMessage> {
    const before = this.acksOf(message.eventId).length;
    this.send(message);
    return this.ack(message.eventId, before + 1);
  }

  async close(): Promise<void> {
    if (this.ws.readyState === WebSocket.CLOSED) return;
    if (this.ws.readyState !== WebSocket.CLOSING) this.ws.close(1000);
    const timer = setTimeout(() => this.ws.terminate(), 1000);
    await this.closed;
    clearTimeout(timer);
  }

  /** Drops the TCP connection without a close frame. */
  async terminate(): Promise<void> {
    this.ws.terminate();
    await this.closed;
  }
}

// ---- a fake webhook receiver --------------------------------------------------------------------

export interface ReceivedHook {
  /** 1-based arrival number. */
  n: number;
  headers: Record<string, string>;
  /** The exact body bytes, as text. */
  raw: string;
  body: WebhookPayload;
  /** Date.now() when the body had arrived. */
  at: number;
}

/** A webhook body as the receiver parsed it: the dispatcher's WebhookBody with the Call typed. */
export type WebhookPayload = Omit<WebhookBody, 'call'> & { call: Call };

/**
 * A webhook receiver on 127.0.0.1:0 that records every request (raw body and headers). It answers
 * 204, or `failStatus` for the next `failNext(n)` requests, or never while `hang` is set.
 */
export class WebhookReceiver {
  readonly requests: ReceivedHook[] = [];
  url = '';
  hang = false;
  failStatus = 500;
  /** The body of a failing answer. */
  failAnswer: (hook: ReceivedHook) => string = () => 'failing on purpose';
  private failures = 0;
  private readonly server: Server;
  private readonly hanging = new Set<ServerResponse>();
  private readonly waiters = new Set<{ count: number; resolve: () => void }>();

  private constructor(readonly pathname: string) {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const headers: Record<string, string> = {};
        for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers[k] = v;
        const raw = Buffer.concat(chunks).toString('utf8');
        let body: WebhookPayload;
        try {
          body = JSON.parse(raw) as WebhookPayload;
        } catch {
          body = { raw } as unknown as WebhookPayload;
        }
        const hook: ReceivedHook = { n: this.requests.length + 1, headers, raw, body, at: Date.now() };
        this.requests.push(hook);
        if (this.hang) this.hanging.add(res);
        else if (this.failures > 0) {
          this.failures -= 1;
          res.writeHead(this.failStatus, { 'content-type': 'text/plain' }).end(this.failAnswer(hook));
        } else res.writeHead(204).end();
        for (const w of [...this.waiters]) {
          if (this.requests.length >= w.count) {
            this.waiters.delete(w);
            w.resolve();
          }
        }
      });
    });
  }

  static async start(pathname = '/hook'): Promise<WebhookReceiver> {
    const r = new WebhookReceiver(pathname);
    await new Promise<void>((resolve) => r.server.listen(0, '127.0.0.1', resolve));
    r.url = `http://127.0.0.1:${(r.server.address() as AddressInfo).port}${pathname}`;
    return r;
  }

  /** The next `n` requests are answered with `status`. */
  failNext(n: number, status = 500): void {
    this.failures = n;
    this.failStatus = status;
  }

  /** Resolves once `count` requests have arrived in all; returns them. */
  async waitFor(count: number, timeoutMs = 5000): Promise<ReceivedHook[]> {
    if (this.requests.length < count) {
      await new Promise<void>((resolve, reject) => {
        const waiter = {
          count,
          resolve: () => {
            clearTimeout(timer);
            resolve();
          },
        };
        const timer = setTimeout(() => {
          this.waiters.delete(waiter);
          reject(new Error(`webhook receiver: ${this.requests.length} of ${count} requests within ${timeoutMs} ms: ${this.requests.map((r) => r.body.event).join(', ')}`));
        }, timeoutMs);
        this.waiters.add(waiter);
      });
    }
    return this.requests.slice(0, count);
  }

  /** The request after the ones received so far. */
  async next(timeoutMs = 5000): Promise<ReceivedHook> {
    const all = await this.waitFor(this.requests.length + 1, timeoutMs);
    return all[all.length - 1]!;
  }

  /** Waits for a request that passes `test` (already received or still to come). */
  async waitUntil(test: (r: ReceivedHook) => boolean, timeoutMs = 5000): Promise<ReceivedHook> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.requests.find(test);
      if (found) return found;
      await this.waitFor(this.requests.length + 1, Math.max(1, deadline - Date.now()));
    }
  }

  /** The requests of one call. */
  of(callId: string): ReceivedHook[] {
    return this.requests.filter((r) => r.body.call?.id === callId);
  }

  async close(): Promise<void> {
    for (const res of this.hanging) res.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

// ---- files -----------------------------------------------------------------------------------

export { filesContaining, storedContaining } from './stored.js';

// ---- one place that stops what a test started -------------------------------------------------

export interface Scope {
  gateway(options?: Parameters<typeof startTestGateway>[0]): Promise<TestGateway>;
  phone(gateway: Endpoint, options?: Parameters<typeof pairedPhone>[1]): Promise<PhoneSimulator>;
  /** A simulator made by the test itself, stopped at the end. */
  track<T extends { stop(): Promise<void> } | { close(): Promise<void> }>(thing: T): T;
  raw(gateway: Endpoint, deviceToken: string, hello?: Record<string, unknown> | false, options?: WebSocket.ClientOptions): Promise<RawPhone>;
  receiver(pathname?: string): Promise<WebhookReceiver>;
  /** A temporary directory removed at the end. */
  tempDir(): string;
  defer(fn: () => Promise<void> | void): void;
}

/**
 * Registers an afterEach that stops, newest first, everything started through the scope during the
 * test: phones and receivers before the gateways they talk to.
 */
export function testScope(): Scope {
  const cleanups: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    const errors: unknown[] = [];
    for (const fn of cleanups.splice(0).reverse()) {
      try {
        await fn();
      } catch (err) {
        errors.push(err);
      }
    }
    if (errors.length) throw errors[0];
  });
  const track = <T extends { stop(): Promise<void> } | { close(): Promise<void> }>(thing: T): T => {
    cleanups.push(() => ('stop' in thing ? thing.stop() : thing.close()));
    return thing;
  };
  return {
    async gateway(options) {
      const g = await startTestGateway(options);
      cleanups.push(() => g.stop());
      return g;
    },
    async phone(gateway, options) {
      const sim = new PhoneSimulatorHolder();
      cleanups.push(() => sim.stop());
      sim.sim = await pairedPhone(gateway, options);
      return sim.sim;
    },
    track,
    async raw(gateway, deviceToken, hello, options) {
      const phone = await RawPhone.connect(gateway, deviceToken, hello, options);
      cleanups.push(() => phone.close());
      return phone;
    },
    async receiver(pathname) {
      const r = await WebhookReceiver.start(pathname);
      cleanups.push(() => r.close());
      return r;
    },
    tempDir() {
      const dir = mkdtempSync(path.join(tmpdir(), 'vg-calls-'));
      cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
      return dir;
    },
    defer(fn) {
      cleanups.push(fn);
    },
  };
}

/** Lets the scope stop a simulator whose pairing is still under way when the test fails. */
class PhoneSimulatorHolder {
  sim: PhoneSimulator | undefined;
  async stop(): Promise<void> {
    await this.sim?.stop();
  }
}
