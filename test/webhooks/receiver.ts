import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

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
  readonly requests: ReceivedRequest[] = [];
  url = '';
  private readonly server: Server;
  private readonly waiters: Array<{ count: number; resolve: () => void }> = [];

  constructor(public respond: (req: ReceivedRequest) => void = (r) => r.res.writeHead(204).end()) {
    this.server = createServer((req: IncomingMessage, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const headers: Record<string, string> = {};
        for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers[k] = v;
        const received: ReceivedRequest = { n: this.requests.length + 1, headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now(), res };
        this.requests.push(received);
        this.respond(received);
        for (const w of [...this.waiters]) {
          if (this.requests.length >= w.count) {
            this.waiters.splice(this.waiters.indexOf(w), 1);
            w.resolve();
          }
        }
      });
    });
  }

  static async start(respond?: (req: ReceivedRequest) => void): Promise<FakeReceiver> {
    const r = new FakeReceiver(respond);
    await new Promise<void>((resolve) => r.server.listen(0, '127.0.0.1', resolve));
    r.url = `http://127.0.0.1:${(r.server.address() as AddressInfo).port}/hook`;
    return r;
  }

  /** Resolves with request number n (1-based) once it has arrived. */
  async nth(n: number): Promise<ReceivedRequest> {
    if (this.requests.length < n) await new Promise<void>((resolve) => this.waiters.push({ count: n, resolve }));
    return this.requests[n - 1]!;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
