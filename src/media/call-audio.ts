import { BYTES_PER_SAMPLE, PlayoutBuffer, PlayoutPacer, SAMPLE_RATE, type AudioDrops, type SourceQueue } from '../audio/index.js';

/** Hears each frame of the remote party; returns false when it could not pass the frame on (its socket is gone). */
export type FrameListener = (frame: Buffer) => boolean | void;

/** Phone frames older than this mean the phone is no longer sending audio. */
const STREAMING_WINDOW_MS = 500;

/**
 * Most audio one source may have queued: two minutes. Agents may send speech faster than real time,
 * but a source that runs this far ahead is broken or hostile; what would overflow is dropped.
 */
export const MAX_QUEUED_BYTES = 120 * SAMPLE_RATE * BYTES_PER_SAMPLE;

/** Marks any source may have waiting, however little audio it has queued. */
export const MARK_ALLOWANCE = 1000;
/** Plus one mark per this much queued audio (10 ms). */
const BYTES_PER_MARK = (SAMPLE_RATE / 100) * BYTES_PER_SAMPLE;

/**
 * How many marks a source may have waiting with `queuedBytes` of its audio unplayed. A mark only
 * waits while audio is queued ahead of it, and that queue is bounded (MAX_QUEUED_BYTES), so marks
 * are bounded by the audio they wait for: one per 10 ms of it, plus an allowance for marks sent
 * back to back. At the two-minute bound that is 13,000 marks.
 */
export function maxPendingMarks(queuedBytes: number): number {
  return MARK_ALLOWANCE + Math.floor(queuedBytes / BYTES_PER_MARK);
}

/** What a source of play-out hears back. */
export interface SourceEvents {
  /** A mark of this source: every sample pushed before it has been played, or (`cleared`) dropped by `clear`. */
  markPlayed?(name: string, cleared: boolean): void;
  /** The source has more than MAX_QUEUED_BYTES unplayed: what it pushed is dropped. Once per overflow. */
  overflow?(): void;
}

/** A mark a source may not queue: it already has as many waiting as its queued audio allows (maxPendingMarks). */
export interface MarksFull {
  waiting: number;
  queuedBytes: number;
}

/** One source of audio played into a call: an agent stream, a media socket, the assistant. */
export interface PlayoutSource {
  /** 16 kHz s16le of any length, played after what it pushed before. */
  push(pcm: Buffer): void;
  /** Queues a mark behind the audio pushed so far (fired at once when none is pending); what was refused, or null. */
  mark(name: string): MarksFull | null;
  /** Drops its unplayed audio; its pending marks fire at once. */
  clear(): void;
  /** Like clear, and the source is gone. */
  remove(): void;
  /** Bytes it pushed that have not been played yet. */
  queuedBytes(): number;
}

/**
 * The audio of one call, as a port: the remote party's frames go out to every listener (agent
 * stream, media sockets, assistant); sources push audio, marks and clears in, and hear back their
 * played marks and overflows; the mix goes to the phone at one frame per 20 ms on average, as soon
 * as each frame may go (audio/pacer.ts), the shared frame clock's `tick` bringing the time. The
 * play-out buffer is its own: nobody else reads it.
 */
export class CallAudio {
  /** Replaced, never changed in place, so a frame can be handed round while listeners come and go. */
  private listeners: readonly FrameListener[] = [];
  private readonly sourceEvents = new Map<string, SourceEvents>();
  private readonly playout = new PlayoutBuffer((source, name, cleared) => this.sourceEvents.get(source)?.markPlayed?.(name, cleared));
  private readonly pacer = new PlayoutPacer(this.playout, (frame) => this.send(frame));
  private lastFrameAt = -Infinity;
  framesIn = 0;
  framesOut = 0;

  constructor(
    readonly callId: string,
    readonly deviceId: string,
    /** The phone's audio port: sends to whatever socket the phone has now; false when it has none. */
    private readonly phone: { send(frame: Buffer): boolean },
    private readonly drops: AudioDrops,
  ) {}

  get streaming(): boolean {
    return performance.now() - this.lastFrameAt < STREAMING_WINDOW_MS;
  }

  /** A 640-byte frame from the phone (the phone connection drops frames of any other size). */
  fromPhone(frame: Buffer): void {
    this.lastFrameAt = performance.now();
    this.framesIn += 1;
    const listeners = this.listeners;
    for (let i = 0; i < listeners.length; i++) if (listeners[i]!(frame) === false) this.drops.consumerGone += 1;
  }

  /** The phone is not sending any more (its socket closed, or the call was put on hold): no waiting out the window. */
  stopStreaming(): void {
    this.lastFrameAt = -Infinity;
  }

  listen(listener: FrameListener): () => void {
    this.listeners = [...this.listeners, listener];
    return () => {
      this.listeners = this.listeners.filter((l) => l !== listener);
    };
  }

  /** Registers a play-out source under an id of its own. */
  source(id: string, events: SourceEvents = {}): PlayoutSource {
    this.sourceEvents.set(id, events);
    return new CallAudioSource(this.playout.source(id), this.pacer, this.drops, events, () => this.sourceEvents.delete(id));
  }

  /** One tick of the frame clock: the pacer sends what is due (audio/pacer.ts); nothing is sent while idle. */
  tick(): void {
    this.pacer.tick();
  }

  private send(frame: Buffer): void {
    if (this.phone.send(frame)) this.framesOut += 1;
    else this.drops.phoneGone += 1;
  }
}

/** One source's way into the call: it holds its own queue, so nothing is looked up per push. */
class CallAudioSource implements PlayoutSource {
  private overflowed = false;

  constructor(
    private readonly queue: SourceQueue,
    private readonly pacer: PlayoutPacer,
    private readonly drops: AudioDrops,
    private readonly events: SourceEvents,
    private readonly forget: () => void,
  ) {}

  push(pcm: Buffer): void {
    if (this.queue.removed) return;
    if (this.queue.pendingBytes() + pcm.length > MAX_QUEUED_BYTES) {
      this.drops.queueFullBytes += pcm.length;
      if (!this.overflowed) this.events.overflow?.();
      this.overflowed = true;
      return;
    }
    this.overflowed = false;
    this.queue.push(pcm);
    this.pacer.pushed(pcm.length);
  }

  mark(name: string): MarksFull | null {
    const waiting = this.queue.pendingMarks();
    const queuedBytes = this.queue.pendingBytes();
    if (waiting >= maxPendingMarks(queuedBytes)) return { waiting, queuedBytes };
    this.queue.mark(name);
    return null;
  }

  clear(): void {
    this.queue.clear();
    this.pacer.cleared();
  }

  remove(): void {
    if (this.queue.removed) return;
    this.queue.remove();
    this.pacer.cleared();
    this.forget();
  }

  queuedBytes(): number {
    return this.queue.pendingBytes();
  }
}
