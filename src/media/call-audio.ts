import { BYTES_PER_SAMPLE, FRAME_BYTES, PlayoutBuffer, SAMPLE_RATE, type AudioDrops } from '../audio/index.js';

/** Hears each frame of the remote party; returns false when it could not pass the frame on (its socket is gone). */
export type FrameListener = (frame: Buffer) => boolean | void;
export type MarkPlayed = (name: string) => void;

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

/**
 * The audio of one call: the remote party's frames fanned out to every listener (agent stream,
 * media sockets, assistant), and one play-out buffer mixing what those sources send into the call,
 * which the shared frame clock drains at exactly one frame per 20 ms.
 */
export class CallAudio {
  private readonly listeners = new Set<FrameListener>();
  private readonly markListeners = new Map<string, MarkPlayed>();
  readonly playout = new PlayoutBuffer((source, name) => this.markListeners.get(source)?.(name));
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

  /** Registers a play-out source; `onMark` hears its marks once the audio before them has played. */
  source(id: string, onMark?: MarkPlayed, onOverflow?: () => void): { push(pcm: Buffer): void; mark(name: string): void; clear(): void; remove(): void } {
    if (onMark) this.markListeners.set(id, onMark);
    let overflowed = false;
    return {
      push: (pcm) => {
        if (this.playout.pendingBytes(id) + pcm.length > MAX_QUEUED_BYTES) {
          this.drops.queueFullBytes += pcm.length;
          if (!overflowed) onOverflow?.();
          overflowed = true;
          return;
        }
        overflowed = false;
        this.playout.push(id, pcm);
      },
      mark: (name) => this.playout.mark(id, name),
      clear: () => this.playout.clear(id),
      remove: () => {
        this.playout.removeSource(id);
        this.markListeners.delete(id);
      },
    };
  }

  /** One clock tick: the next mixed frame goes to the phone; nothing is sent while idle. */
  tick(): void {
    const frame = this.playout.nextFrame();
    if (!frame || frame.length !== FRAME_BYTES) return;
    if (this.sendToPhone(frame)) this.framesOut += 1;
    else this.drops.phoneGone += 1;
  }
}
