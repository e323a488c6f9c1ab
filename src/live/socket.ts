import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import type { Principal } from '../auth/index.js';
import { GatewayError } from '../errors.js';
import type { Logger } from '../log.js';
import { CLOSE_TOO_SLOW } from '../socket-writes.js';
import type { LiveHub } from './hub.js';

export interface LiveSocketOptions {
  live: LiveHub;
  log: Logger;
  /** Checks the upgrade's credential; throws a GatewayError (401) to refuse it. */
  authenticate: (req: IncomingMessage) => Promise<Principal>;
  pingIntervalMs?: number;
  /** A client that falls this far behind is dropped (it reconnects and reloads). */
  maxBufferedBytes?: number;
}

/** Close code for a client that could not keep up; it should reconnect and reload what it shows. */
export { CLOSE_TOO_SLOW };
/** Close code once the credential of the upgrade no longer holds (signed out, expired, key revoked). */
export const CLOSE_UNAUTHORIZED = 4001;

/**
 * The console's live channel, `GET /v1/live` as a WebSocket: after `hello`, every LiveMessage as one
 * JSON text frame. The client sends nothing (anything it sends is ignored).
 */
export class LiveSocketServer {
  private readonly wss = new WebSocketServer({ noServer: true, maxPayload: 4096 });
  /** Each open socket, whether it answered the last ping, and its upgrade request (to check its credential again). */
  private readonly sockets = new Map<WebSocket, { alive: boolean; req: IncomingMessage }>();
  private readonly pingTimer: NodeJS.Timeout;

  constructor(private readonly o: LiveSocketOptions) {
    this.pingTimer = setInterval(() => this.ping(), o.pingIntervalMs ?? 25_000);
    this.pingTimer.unref();
  }

  get clients(): number {
    return this.sockets.size;
  }

  handleUpgrade = async (req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> => {
    const principal = await this.o.authenticate(req);
    this.wss.handleUpgrade(req, socket, head, (ws) => this.accept(ws, req, principal));
  };

  private accept(ws: WebSocket, req: IncomingMessage, principal: Principal): void {
    const maxBuffered = this.o.maxBufferedBytes ?? 4 * 1024 * 1024;
    const state = { alive: true, req };
    const unsubscribe = this.o.live.subscribe((_message, text) => {
      if (ws.readyState !== ws.OPEN) return;
      if (ws.bufferedAmount > maxBuffered) {
        ws.close(CLOSE_TOO_SLOW, 'too far behind; reconnect');
        return;
      }
      ws.send(text);
    });
    this.sockets.set(ws, state);
    ws.on('pong', () => (state.alive = true));
    ws.on('message', () => undefined);
    ws.on('error', (err) => this.o.log.debug({ err }, 'live socket error'));
    ws.on('close', () => {
      unsubscribe();
      this.sockets.delete(ws);
    });
    this.o.log.debug({ principal: principal.kind }, 'live channel opened');
    ws.send(JSON.stringify({ type: 'hello', serverTime: new Date().toISOString() }));
  }

  /** Drops sockets that did not answer the last ping, and those whose credential no longer holds. */
  private ping(): void {
    for (const [ws, state] of this.sockets) {
      if (!state.alive) {
        ws.terminate();
        continue;
      }
      state.alive = false;
      ws.ping();
      // A check that fails for another reason (the store timed out) says nothing about the credential.
      this.o.authenticate(state.req).catch((err: unknown) => {
        if (!(err instanceof GatewayError && err.code === 'UNAUTHORIZED')) {
          this.o.log.warn({ err }, 'live channel credential could not be checked; kept open');
        } else if (ws.readyState === ws.OPEN) {
          ws.close(CLOSE_UNAUTHORIZED, 'the credential is no longer valid');
        }
      });
    }
  }

  /** Closes every live socket (1001, going away). */
  close(): void {
    clearInterval(this.pingTimer);
    for (const ws of this.sockets.keys()) ws.close(1001, 'gateway shutting down');
    this.wss.close();
  }
}
