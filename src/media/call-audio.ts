import { BYTES_PER_SAMPLE, PlayoutBuffer, PlayoutPacer, SAMPLE_RATE, type AudioDrops } from '../audio/index.js';

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
  /** A mark of this source: every sample pushed before it has been played (or cleared). */
  markPlayed?(name: string): void;
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
  private readonly listeners = new Set<FrameListener>();
  private readonly sourceEvents = new Map<string, SourceEvents>();
  private readonly playout = new PlayoutBuffer((source, name) => this.sourceEvents.get(source)?.markPlayed?.(name));
  private readonly pacer = new PlayoutPacer(this.playout, (frame) => this.send(frame));
  private lastFrameAt = -Infinity;
  framesIn = 0;
  framesOut = 0;

  constructor(
    readonly callId: string,
    readonly deviceId: string,
    private readonly sendToPhone: (frame: Buffer) => boolean,
    private readonly drops: AudioDrops,
  ) {}

  get streaming(): boolean {
    return performance.now() - this.lastFrameAt < STREAMING_WINDOW_MS;
  }

  /** A 640-byte frame from the phone (the phone connection drops frames of any other size). */
  fromPhone(frame: Buffer): void {
    this.lastFrameAt = performance.now();
    this.framesIn += 1;
    for (const listener of this.listeners) if (listener(frame) === false) this.drops.consumerGone += 1;
  }

  /** The phone is not sending any more (its socket closed, or the call was put on hold): no waiting out the window. */
  stopStreaming(): void {
    this.lastFrameAt = -Infinity;
  }

  listen(listener: FrameListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Registers a play-out source under an id of its own. */
  source(id: string, events: SourceEvents = {}): PlayoutSource {
    this.sourceEvents.set(id, events);
    const playout = this.playout;
    let overflowed = false;
    return {
      push: (pcm) => {
        if (playout.pendingBytes(id) + pcm.length > MAX_QUEUED_BYTES) {
          this.drops.queueFullBytes += pcm.length;
          if (!overflowed) events.overflow?.();
          overflowed = true;
          return;
        }
        overflowed = false;
        playout.push(id, pcm);
        this.pacer.pushed(pcm.length);
      },
      mark: (name) => {
        const waiting = playout.pendingMarks(id);
        const queuedBytes = playout.pendingBytes(id);
        if (waiting >= maxPendingMarks(queuedBytes)) return { waiting, queuedBytes };
        playout.mark(id, name);
        return null;
      },
      clear: () => {
        playout.clear(id);
        this.pacer.cleared();
      },
      remove: () => {
        playout.removeSource(id);
        this.pacer.cleared();
        this.sourceEvents.delete(id);
      },
      queuedBytes: () => playout.pendingBytes(id),
    };
  }

  /** One tick of the frame clock: the pacer sends what is due (audio/pacer.ts); nothing is sent while idle. */
  tick(): void {
    this.pacer.tick();
  }

  private send(frame: Buffer): void {
    if (this.sendToPhone(frame)) this.framesOut += 1;
    else this.drops.phoneGone += 1;
  }
}
