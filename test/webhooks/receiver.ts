import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Recorded } from '../helpers/waits.js';

export interface ReceivedRequest {
  n: number;
  headers: Record<string, string>;
  body: string;
  /** Date.now() when the body had arrived. */
  at: number;
  res: ServerResponse;
}

/** A fake webhook receiver on 127.0.0.1; `respond` decides the answer (204 by default) or leaves it hanging. */
export class FakeReceiver {
  /** Every request, in arrival order. */
  readonly received = new Recorded<ReceivedRequest>('webhook receiver', (r) => `#${r.n} ${r.headers['webhook-id'] ?? ''}`);
  url = '';
  private readonly server: Server;

  constructor(public respond: (req: ReceivedRequest) => void = (r) => r.res.writeHead(204).end()) {
    this.server = createServer((req: IncomingMessage, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const headers: Record<string, string> = {};
        for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers[k] = v;
        const received: ReceivedRequest = { n: this.requests.length + 1, headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now(), res };
        this.received.add(received);
        this.respond(received);
      });
    });
  }

  static async start(respond?: (req: ReceivedRequest) => void): Promise<FakeReceiver> {
    const r = new FakeReceiver(respond);
    await new Promise<void>((resolve) => r.server.listen(0, '127.0.0.1', resolve));
    r.url = `http://127.0.0.1:${(r.server.address() as AddressInfo).port}/hook`;
    return r;
  }

  get requests(): ReceivedRequest[] {
    return this.received.items;
  }

  /**
   * Resolves with request number n (1-based) once it has arrived; retries come after their delays,
   * so the bound is ours just under the runner's 20 s rather than the usual 5 s.
   */
  nth(n: number, timeoutMs = 15_000): Promise<ReceivedRequest> {
    return this.received.nth(n - 1, undefined, { timeoutMs, what: `request #${n}` });
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
