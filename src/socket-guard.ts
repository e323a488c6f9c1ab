import type { Writable } from 'node:stream';
import type WebSocket from 'ws';

/** Close code for a peer that fell too far behind reading what the gateway sends. */
export const CLOSE_TOO_SLOW = 4008;

/** After a close frame that waits behind unread data, how long the peer has before the socket is destroyed. */
const SLOW_CLOSE_GRACE_MS = 5_000;

/**
 * Closes a peer that fell too far behind with CLOSE_TOO_SLOW and `reason`. The close frame waits
 * behind what the peer has not read (a peer that reads again gets it); the socket is destroyed
 * SLOW_CLOSE_GRACE_MS later anyway.
 */
export function closeTooSlow(ws: WebSocket, reason: string): void {
  ws.close(CLOSE_TOO_SLOW, reason);
  setTimeout(() => ws.terminate(), SLOW_CLOSE_GRACE_MS).unref();
}

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

/** The sockets held this turn, in the order of their first write (an array: no hashing per write). */
const held: HeldWrites[] = [];
let flushScheduled = false;

function uncorkAll(): void {
  flushScheduled = false;
  // Emptied first: a socket whose uncork throws must not keep the others corked.
  const turn = held.splice(0);
  for (const writes of turn) {
    writes.heldFrom = -1;
    const transport = writes.transport;
    try {
      if (!transport.destroyed) transport.uncork();
    } catch {
      transport.destroy();
    }
  }
}

/** Most one turn may hold back for one socket (a flood of marks fired at once is about 1.5 MB). */
const TURN_HOLD_LIMIT = 4 * 1024 * 1024;

/**
 * The writes to one socket (the TCP socket under a WebSocket), held until the end of the event
 * loop's current turn and then let go with everything written to every such socket in that turn,
 * one system call per socket. The audio path writes a frame to one socket for every frame it reads
 * from another; written one by one, the reader's process is woken for nearly every frame, which
 * costs both processes more than the frames themselves (docs/performance.md, "Writes held to the
 * end of the turn"). Order on a socket is kept (everything goes through its one buffer, a close
 * frame too); a socket destroyed meanwhile loses what was held, so `terminate()` right after a
 * `send` loses that message (nothing does that: a peer is terminated only when nothing more can
 * reach it). Writes made from a `setImmediate` callback leave one loop iteration later (the loop
 * does not block in between while the flush is pending).
 *
 * One object per socket, made with it, so that a write finds its state without a lookup.
 */
export class HeldWrites {
  /** What `transport` had unsent when this turn's first write came; -1 while it is not held. */
  heldFrom = -1;

  constructor(readonly transport: Writable) {}

  /**
   * Call before each write. Returns what the peer has not taken yet, for a back-pressure bound: the
   * bytes waiting in the socket when this turn began to write to it. What the turn itself holds back
   * is the gateway's doing, not the peer's slowness, so it does not count within that turn, unless
   * the turn held more than TURN_HOLD_LIMIT, which then counts whole: memory stays bounded within a
   * turn too. What the kernel has not taken of it by the next turn counts then, as it did when every
   * write went out at once.
   */
  hold(): number {
    const all = this.transport.writableLength;
    const before = this.heldFrom;
    if (before >= 0) return all - before > TURN_HOLD_LIMIT ? all : before;
    this.heldFrom = all;
    held.push(this);
    this.transport.cork();
    if (!flushScheduled) {
      flushScheduled = true;
      setImmediate(uncorkAll);
    }
    return all;
  }
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
  private readonly writes: HeldWrites;

  constructor(
    readonly ws: WebSocket,
    private readonly o: AudioPeerOptions,
  ) {
    this.writes = new HeldWrites(o.transport);
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
    if (!this.open) return false;
    if (this.writes.hold() > this.o.maxBufferedBytes) {
      this.cutOff('fell more than 1 s behind reading the call audio', () => closeTooSlow(this.ws, 'too slow: more than 1 s of call audio unread'));
      return false;
    }
    // ws sends a Buffer as binary and a string as text; no options object per frame.
    this.ws.send(data);
    return true;
  }

  private cutOff(reason: string, end: () => void): void {
    if (this.state === 'cut-off') return;
    this.state = 'cut-off';
    this.heartbeat.stop();
    end();
    this.o.onCutOff(reason);
  }
}

const seconds = (ms: number): string => `${Math.round(ms / 100) / 10} s`;
