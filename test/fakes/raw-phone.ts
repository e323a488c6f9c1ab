import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import WebSocket from 'ws';
import type { PhoneEventName } from '../../src/simulator/index.js';
import type { Endpoint } from '../helpers/gateway.js';
import { Recorded, DEFAULT_WAIT_MS } from '../helpers/waits.js';

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
  /** Every text message of the gateway, from the upgrade on. */
  readonly received = new Recorded<GatewayMessage>('raw phone');
  readonly closed: Promise<{ code: number; reason: string }>;

  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data, isBinary) => {
      if (isBinary) return;
      this.received.add(JSON.parse((data as Buffer).toString('utf8')) as GatewayMessage);
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

  /** The gateway's messages so far, in order. */
  get messages(): GatewayMessage[] {
    return this.received.items;
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
  next(test: (m: GatewayMessage) => boolean, timeoutMs = DEFAULT_WAIT_MS): Promise<GatewayMessage> {
    return this.received.next(test, { timeoutMs, what: 'matching message' });
  }

  /** The next message still to come that passes `test`. */
  nextNew(test: (m: GatewayMessage) => boolean, timeoutMs = DEFAULT_WAIT_MS): Promise<GatewayMessage> {
    return this.received.nextNew(test, { timeoutMs, what: 'new matching message' });
  }

  /** All `event.ack`s of this eventId received so far. */
  acksOf(eventId: string): GatewayMessage[] {
    return this.messages.filter((m) => m.type === 'event.ack' && m.eventId === eventId);
  }

  /** Resolves once `count` acks of the eventId have arrived; returns the last. */
  ack(eventId: string, count = 1, timeoutMs = DEFAULT_WAIT_MS): Promise<GatewayMessage> {
    return this.received.nth(count - 1, (m) => m.type === 'event.ack' && m.eventId === eventId, { timeoutMs, what: `event.ack #${count} of ${eventId}` });
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

