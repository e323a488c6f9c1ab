import { randomUUID } from 'node:crypto';
import type { Writable } from 'node:stream';
import type { WebSocket } from 'ws';
import { FRAME_BYTES } from '../audio/constants.js';
import type { AudioDrops } from '../audio/drops.js';
import type { Logger } from '../log.js';
import type { PhoneFrameReceiver } from './audio-port.js';
import { Heartbeat, type PingTimings } from '../socket-guard.js';
import { BoundedWriter } from '../socket-writes.js';
import { illFormedPath, WELL_FORMED_MESSAGE } from '../text.js';
import { KNOWN_TYPES, PhoneMessage, type Command } from './protocol.js';

export interface ConnectionHandlers {
  onMessage(message: Exclude<PhoneMessage, { type: 'ack' }>): Promise<void>;
  /** Where the phone's audio frames go (its PhoneAudioPort). */
  audio: PhoneFrameReceiver;
  onClose(code: number): void;
  onSeen(): void;
  /** A pong came back: the round trip of the ping. */
  onLatency?(rttMs: number): void;
}

export type AckResult = { ok: boolean; error?: { code: string; message?: string | undefined } | undefined } | 'timeout' | 'closed';

interface PendingAck {
  resolve(result: AckResult): void;
  timer: NodeJS.Timeout;
}

/**
 * Messages parsed and waiting for their turn. Above the high mark the gateway stops reading the
 * socket (the phone's own TCP window then holds what it sends), below the low mark it reads again.
 */
const QUEUE_HIGH = 100;
const QUEUE_LOW = 10;
/**
 * Refused messages answered (and logged) on one socket; later ones are only counted, and the count
 * logged when the socket closes, so a flood of junk costs neither memory nor disk.
 */
const REFUSALS_ANSWERED = 10;
/**
 * What the gateway may have queued for a phone that is not reading: about 30 s of call audio, far
 * more than a phone that reads ever has. Past it the phone is closed with CLOSE_TOO_SLOW.
 */
const MAX_BUFFERED_BYTES = 1024 * 1024;
/** How often a phone that keeps sending is reported as seen to the hub (which stores it every 10 s). */
const SEEN_REPORT_MS = 1_000;

/**
 * One phone socket: parses and serialises its messages (applied strictly in arrival order, reading
 * paused while too many wait), pings it, and matches command acks.
 */
export class PhoneConnection {
  /** Names this socket among the phone's sockets, on every node (a newer one replaces it). */
  readonly id = randomUUID();
  latencyMs: number | undefined;
  /** Kept as a number: it is set by every message, read rarely. */
  private lastSeenMs = Date.now();
  private seenReportedMs = 0;
  helloReceived = false;
  /** Binary frames refused for not being 640 bytes. */
  badFrames = 0;
  /** Text messages refused (not JSON, unknown type, invalid fields, before hello). */
  badMessages = 0;
  /** Times reading was paused because the phone sent faster than its messages could be applied. */
  pauses = 0;
  private readonly pending = new Map<string, PendingAck>();
  private chain: Promise<void> = Promise.resolve();
  private queued = 0;
  private reading: 'flowing' | 'paused' = 'flowing';
  private readonly heartbeat: Heartbeat;
  /** What the gateway writes to the phone: bounded, and leaving at the end of each turn. */
  private readonly writer: BoundedWriter;

  constructor(
    readonly deviceId: string,
    readonly socket: WebSocket,
    /** The TCP socket under `socket`. */
    transport: Writable,
    private readonly log: Logger,
    private readonly handlers: ConnectionHandlers,
    ping: PingTimings,
    private readonly drops: AudioDrops,
  ) {
    this.writer = new BoundedWriter(socket, {
      maxBufferedBytes: MAX_BUFFERED_BYTES,
      transport,
      cutOff: { reason: 'too slow: more than 1 MiB unread' },
      onCutOff: (unsent) => log.warn({ deviceId, bufferedBytes: unsent }, 'phone is not reading what the gateway sends; closing it'),
    });
    socket.on('message', (data, isBinary) => this.receive(data as Buffer, isBinary));
    // A phone may ping too (to notice a gateway that is gone); its pings show it is there.
    socket.on('ping', () => this.seen());
    socket.on('close', (code) => this.closed(code));
    socket.on('error', (err) => log.warn({ err, deviceId }, 'phone socket error'));
    this.heartbeat = new Heartbeat(socket, {
      intervalMs: ping.pingIntervalMs,
      timeoutMs: ping.pongTimeoutMs,
      onPong: (rtt) => {
        this.latencyMs = Math.round(rtt);
        this.seen();
        handlers.onLatency?.(rtt);
      },
      onMissed: () => {
        log.warn({ deviceId, pongTimeoutMs: ping.pongTimeoutMs }, 'phone did not answer a ping in time; dropping it');
        socket.terminate();
      },
      // While the gateway holds reading, the pong sits unread behind the phone's messages.
      holding: () => this.reading === 'paused',
    });
  }

  get lastSeenAt(): string {
    return new Date(this.lastSeenMs).toISOString();
  }

  get open(): boolean {
    return this.socket.readyState === this.socket.OPEN;
  }

  send(message: object): void {
    this.write(JSON.stringify(message));
  }

  /** False when the socket is no longer open (nothing was sent). */
  sendAudio(frame: Buffer): boolean {
    return this.write(frame);
  }

  /**
   * Every write is bounded: a phone that stops reading (while it floods the gateway, say) is closed
   * once MAX_BUFFERED_BYTES wait for it, rather than at its next missed pong. False when the socket
   * was not open.
   */
  private write(data: string | Buffer): boolean {
    // Cut off is "sent" for the caller, as it always was: the socket closes on its own account.
    return this.writer.write(data) !== 'not-open';
  }

  /** Sends a command and resolves with the phone's ack, `timeout` after `timeoutMs`, or `closed`. */
  command(command: Command, timeoutMs: number): Promise<AckResult> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.pending.delete(command.commandId);
        resolve('timeout');
      }, timeoutMs);
      this.pending.set(command.commandId, { resolve, timer });
      this.send(command);
    });
  }

  close(code: number, reason: string): void {
    this.socket.close(code, reason);
    // A phone that does not answer the close handshake must not keep its slot.
    setTimeout(() => this.socket.terminate(), 2000).unref();
  }

  /**
   * Resolves once every message received so far has been applied (or refused): what the phone sent
   * before a moment is then known to the gateway, however long its own work queued it.
   */
  applied(): Promise<void> {
    return this.chain;
  }

  private seen(): void {
    const now = Date.now();
    this.lastSeenMs = now;
    // Called for every audio frame: the hub hears of it at most once a second (it stores it far less often).
    if (now - this.seenReportedMs < SEEN_REPORT_MS) return;
    this.seenReportedMs = now;
    this.handlers.onSeen();
  }

  private receive(data: Buffer, isBinary: boolean): void {
    this.seen();
    if (isBinary) {
      if (data.length === FRAME_BYTES) this.handlers.audio.fromPhone(data);
      else this.badFrame(data.length);
      return;
    }
    let json: unknown;
    try {
      json = JSON.parse(data.toString('utf8'));
    } catch {
      return this.refuse('The message is not JSON');
    }
    // Every text of every message, keys and unknown fields too, whatever its type: none is stored changed.
    const illFormed = illFormedPath(json);
    if (illFormed) return this.refuse(`Invalid message: ${illFormed.join('.') || 'the message'}: ${WELL_FORMED_MESSAGE}`);
    const type = typeof json === 'object' && json !== null ? (json as { type?: unknown }).type : undefined;
    if (typeof type !== 'string' || !KNOWN_TYPES.has(type)) return this.refuse(`Unknown message type ${JSON.stringify(type ?? null)}`);
    const parsed = PhoneMessage.safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      return this.refuse(`Invalid ${type} message: ${issue ? `${issue.path.join('.') || type}: ${issue.message}` : 'malformed'}`);
    }
    const message = parsed.data;
    if (message.type === 'ack') {
      const waiting = this.pending.get(message.commandId);
      if (waiting) {
        clearTimeout(waiting.timer);
        this.pending.delete(message.commandId);
        waiting.resolve({ ok: message.ok, error: message.error });
      }
      return;
    }
    if (message.type !== 'hello' && !this.helloReceived) return this.refuse('The first message must be hello');
    if (message.type === 'hello') this.helloReceived = true;
    this.enqueue();
    this.chain = this.chain
      .then(() => this.handlers.onMessage(message))
      .catch((err: unknown) => {
        this.log.error({ err, deviceId: this.deviceId, type: message.type }, 'phone message failed');
        this.send({ type: 'error', code: 'INTERNAL_ERROR', message: 'The gateway could not process the message' });
      })
      .finally(() => this.dequeue());
  }

  private enqueue(): void {
    this.queued += 1;
    if (this.queued < QUEUE_HIGH || this.reading === 'paused') return;
    this.reading = 'paused';
    this.pauses += 1;
    if (this.pauses === 1) this.log.warn({ deviceId: this.deviceId, queued: this.queued }, 'phone sends faster than its messages can be applied; reading from it paused');
    this.socket.pause();
  }

  private dequeue(): void {
    this.queued -= 1;
    if (this.reading === 'paused' && this.queued <= QUEUE_LOW) {
      this.reading = 'flowing';
      this.socket.resume();
    }
  }

  /** Audio must come in 20 ms frames: anything else is dropped, counted, and reported once per socket. */
  private badFrame(bytes: number): void {
    this.badFrames += 1;
    this.drops.wrongSize += 1;
    if (this.badFrames > 1) return;
    const message = `Binary frames must be exactly ${FRAME_BYTES} bytes (20 ms of 16 kHz mono s16le); got ${bytes}. Frames of another size are dropped and counted; this is said once per connection`;
    this.log.warn({ deviceId: this.deviceId, bytes }, 'phone sent an audio frame of the wrong size; dropping such frames');
    this.send({ type: 'error', code: 'BAD_MESSAGE', message });
  }

  /**
   * Answers a refused message in its turn (so it counts against the read pause like any message),
   * the first REFUSALS_ANSWERED of a socket only.
   */
  private refuse(message: string): void {
    this.badMessages += 1;
    const count = this.badMessages;
    this.enqueue();
    this.chain = this.chain
      .then(() => {
        if (count > REFUSALS_ANSWERED) return;
        this.log.warn({ deviceId: this.deviceId, reason: message }, 'bad phone message');
        const last = count === REFUSALS_ANSWERED ? ` (refused message ${count} on this connection: later ones are counted, not answered)` : '';
        this.send({ type: 'error', code: 'BAD_MESSAGE', message: message + last });
      })
      .finally(() => this.dequeue());
  }

  private closed(code: number): void {
    this.heartbeat.stop();
    for (const waiting of this.pending.values()) {
      clearTimeout(waiting.timer);
      waiting.resolve('closed');
    }
    this.pending.clear();
    this.handlers.onClose(code);
  }

  /** Resolves once every message received so far has been handled. */
  drain(): Promise<void> {
    return this.chain;
  }
}
