import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Call } from '../../src/calls/index.js';
import type { WebhookBody } from '../../src/webhooks/index.js';
import { DEFAULT_WAIT_MS, Recorded } from '../helpers/waits.js';

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
  /** Every request, in arrival order. */
  readonly received = new Recorded<ReceivedHook>('webhook receiver', (r) => `#${r.n} ${String(r.body.event ?? r.raw.slice(0, 80))}`);
  url = '';
  hang = false;
  failStatus = 500;
  /** The body of a failing answer. */
  failAnswer: (hook: ReceivedHook) => string = () => 'failing on purpose';
  private failures = 0;
  private readonly server: Server;
  private readonly hanging = new Set<ServerResponse>();

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
        this.received.add(hook);
        if (this.hang) this.hanging.add(res);
        else if (this.failures > 0) {
          this.failures -= 1;
          res.writeHead(this.failStatus, { 'content-type': 'text/plain' }).end(this.failAnswer(hook));
        } else res.writeHead(204).end();
      });
    });
  }

  static async start(pathname = '/hook'): Promise<WebhookReceiver> {
    const r = new WebhookReceiver(pathname);
    await new Promise<void>((resolve) => r.server.listen(0, '127.0.0.1', resolve));
    r.url = `http://127.0.0.1:${(r.server.address() as AddressInfo).port}${pathname}`;
    return r;
  }

  /** The requests so far, in arrival order. */
  get requests(): ReceivedHook[] {
    return this.received.items;
  }

  /** The next `n` requests are answered with `status`. */
  failNext(n: number, status = 500): void {
    this.failures = n;
    this.failStatus = status;
  }

  /** Resolves once `count` requests have arrived in all; returns them. */
  async waitFor(count: number, timeoutMs = DEFAULT_WAIT_MS): Promise<ReceivedHook[]> {
    if (count > 0) await this.received.nth(count - 1, undefined, { timeoutMs, what: `request #${count}` });
    return this.requests.slice(0, count);
  }

  /** The request after the ones received so far. */
  next(timeoutMs = DEFAULT_WAIT_MS): Promise<ReceivedHook> {
    return this.received.nextNew(undefined, { timeoutMs, what: 'another request' });
  }

  /** Waits for a request that passes `test` (already received or still to come). */
  waitUntil(test: (r: ReceivedHook) => boolean, timeoutMs = DEFAULT_WAIT_MS): Promise<ReceivedHook> {
    return this.received.next(test, { timeoutMs, what: 'a matching request' });
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

