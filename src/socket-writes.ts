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

export interface BoundedWriterOptions {
  /** A peer with more than this waiting for it is cut off (about 1 s of what the socket carries, say). */
  maxBufferedBytes: number;
  /**
   * The TCP socket under the WebSocket: given, writes are held to the end of each turn (HeldWrites)
   * and what waits is counted as `hold()` counts it. Without it, each write goes out at once and
   * what waits is the WebSocket's `bufferedAmount` at that write.
   */
  transport?: Writable | undefined;
  /**
   * How a peer past the bound is ended: closed with CLOSE_TOO_SLOW and this reason (the frame waits
   * behind what it has not read; closeTooSlow), or `terminate`d when nothing more should reach it.
   */
  cutOff: { reason: string } | 'terminate';
  /** Told once the socket was ended for falling behind, with the bytes that were waiting. */
  onCutOff(unsent: number): void;
}

/** What one bounded write did: sent, found the socket not open (nothing sent), or cut the peer off. */
export type WriteOutcome = 'sent' | 'not-open' | 'cut-off';

/**
 * The one way the gateway writes to a socket whose peer must keep up: the phone, agent, media and
 * model sockets. Each write first asks what the peer has not taken yet; past `maxBufferedBytes` the
 * peer is cut off instead, so neither the gateway's memory nor the kernel's queues grow behind a
 * peer that stopped reading. Once cut off the socket is no longer open, so later writes send nothing.
 */
export class BoundedWriter {
  /** Null when the socket's writes go out at once (no `transport`). */
  private readonly held: HeldWrites | null;
  private readonly max: number;

  constructor(
    readonly ws: WebSocket,
    private readonly o: BoundedWriterOptions,
  ) {
    this.held = o.transport ? new HeldWrites(o.transport) : null;
    this.max = o.maxBufferedBytes;
  }

  /** Called for every frame of every call: nothing is allocated, and the cut-off is out of line. */
  write(data: Buffer | string): WriteOutcome {
    const ws = this.ws;
    if (ws.readyState !== ws.OPEN) return 'not-open';
    const held = this.held;
    const unsent = held === null ? ws.bufferedAmount : held.hold();
    if (unsent > this.max) return this.cutOff(unsent);
    // ws sends a Buffer as binary and a string as text; no options object per frame.
    ws.send(data);
    return 'sent';
  }

  private cutOff(unsent: number): 'cut-off' {
    const { ws, o } = this;
    if (o.cutOff === 'terminate') ws.terminate();
    else closeTooSlow(ws, o.cutOff.reason);
    o.onCutOff(unsent);
    return 'cut-off';
  }
}
