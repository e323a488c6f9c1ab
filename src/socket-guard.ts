import type { Writable } from 'node:stream';
import type WebSocket from 'ws';
import { BoundedWriter } from './socket-writes.js';

export interface HeartbeatOptions {
  intervalMs: number;
  /** A ping not answered within this long means the peer is gone. */
  timeoutMs: number;
  onPong?(rttMs: number): void;
  /** No pong within `timeoutMs`. The heartbeat has stopped; ending the socket is the caller's. */
  onMissed(): void;
  /** True while the gateway itself has stopped reading the socket: a pong cannot be read then. */
  holding?(): boolean;
}

/**
 * Pings a socket every `intervalMs` and expects each pong within `timeoutMs`. TCP alone takes
 * minutes to notice a half-open connection, and a peer that stops reading answers no ping either,
 * since the ping waits behind everything unread.
 */
export class Heartbeat {
  private readonly interval: NodeJS.Timeout;
  private deadline: NodeJS.Timeout | undefined;
  private sentAt: number | undefined;

  constructor(
    private readonly ws: WebSocket,
    private readonly o: HeartbeatOptions,
  ) {
    ws.on('pong', this.pong);
    this.interval = setInterval(this.ping, o.intervalMs);
  }

  stop(): void {
    clearInterval(this.interval);
    clearTimeout(this.deadline);
    this.ws.off('pong', this.pong);
  }

  private readonly ping = (): void => {
    if (this.sentAt !== undefined || this.ws.readyState !== this.ws.OPEN) return;
    this.sentAt = performance.now();
    this.ws.ping();
    this.deadline = setTimeout(this.expire, this.o.timeoutMs);
  };

  private readonly expire = (): void => {
    if (this.o.holding?.()) {
      this.deadline = setTimeout(this.expire, this.o.timeoutMs);
      return;
    }
    this.stop();
    this.o.onMissed();
  };

  private readonly pong = (): void => {
    if (this.sentAt === undefined) return;
    const rtt = performance.now() - this.sentAt;
    this.sentAt = undefined;
    clearTimeout(this.deadline);
    this.o.onPong?.(rtt);
  };
}

/** How often a socket is pinged and how long its pong may take. */
export interface PingTimings {
  pingIntervalMs: number;
  pongTimeoutMs: number;
}

export interface AudioPeerOptions extends PingTimings {
  /** About one second of what this socket carries; a peer with more than this unsent is cut off. */
  maxBufferedBytes: number;
  /** The TCP socket under `ws`: its writes are held to the end of each turn (`HeldWrites`). */
  transport: Writable;
  /** The peer was cut off (too slow, or silent to pings) and its socket closed; called once. */
  onCutOff(reason: string): void;
}

/**
 * A socket that carries call audio to a consumer who must keep up: an agent or a media client.
 * A consumer more than about a second behind is closed with CLOSE_TOO_SLOW and the reason, one that
 * answers no ping is destroyed, so neither the gateway's memory nor the kernel's queues grow.
 */
export class AudioPeer {
  private state: 'open' | 'cut-off' = 'open';
  private readonly heartbeat: Heartbeat;
  private readonly writer: BoundedWriter;

  constructor(
    readonly ws: WebSocket,
    private readonly o: AudioPeerOptions,
  ) {
    this.writer = new BoundedWriter(ws, {
      maxBufferedBytes: o.maxBufferedBytes,
      transport: o.transport,
      cutOff: { reason: 'too slow: more than 1 s of call audio unread' },
      onCutOff: () => this.cutOff('fell more than 1 s behind reading the call audio'),
    });
    this.heartbeat = new Heartbeat(ws, {
      intervalMs: o.pingIntervalMs,
      timeoutMs: o.pongTimeoutMs,
      onMissed: () => this.cutOff(`did not answer a ping within ${seconds(o.pongTimeoutMs)}`, () => ws.terminate()),
    });
    ws.once('close', () => this.heartbeat.stop());
  }

  get open(): boolean {
    return this.state === 'open' && this.ws.readyState === this.ws.OPEN;
  }

  /** Sends unless the peer is gone or has fallen behind (then it is cut off); false when nothing was sent. */
  send(data: Buffer | string): boolean {
    return this.state === 'open' && this.writer.write(data) === 'sent';
  }

  /**
   * Ends the peer's socket (`end`; the writer has ended it already when the bound tripped), stops
   * pinging it and says why, once. The socket is ended before anyone is told, so whoever hears of
   * it finds it closing (an agent stream then sends no close of its own).
   */
  private cutOff(reason: string, end?: () => void): void {
    if (this.state === 'cut-off') return;
    this.state = 'cut-off';
    this.heartbeat.stop();
    end?.();
    this.o.onCutOff(reason);
  }
}

const seconds = (ms: number): string => `${Math.round(ms / 100) / 10} s`;
