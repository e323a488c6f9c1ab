import { FRAME_BYTES } from './constants.js';

/**
 * The catch-up rule: how a real-time source's play-out queue comes back to about one frame deep.
 *
 * A source that sends in real time (an echo, a phone bridged to another call, a model streaming
 * 20 ms chunks) sometimes gets a frame to the gateway just after its tick. That tick plays nothing
 * of it (the phone misses a frame), and from then on every frame of the source waits one tick
 * longer: the queue is one frame deeper for the rest of the call, and each late arrival adds one.
 *
 * The rule gives back exactly those missed ticks, and nothing else:
 * 1. Owed ticks: the ticks at which a source that was playing had nothing queued are owed to it
 *    (at most MAX_OWED_FRAMES in all) if it was late, not pausing. It was late when, after a
 *    silence of at most PAUSE_TICKS (one second, the frame clock's own catch-up bound), what it
 *    sends is no more than that silence should have held (plus one frame in flight). A source that
 *    comes back with more (an answer sent ahead), or after longer, paused: that clears what was owed.
 * 2. Evidence: only when the source had at least two whole frames queued at every one of the last
 *    EVIDENCE_TICKS ticks (one second) does it have a standing frame that its arrivals never needed;
 *    then up to (that least depth - 1) of its owed ticks may be given back.
 * 3. Giving back: a tick that may give one back plays one extra frame of that source right after
 *    the regular one, if a whole frame is left after it. Never more than one extra frame per tick.
 *
 * What this keeps:
 * - Nothing is dropped or reordered: the audio a source sent is all played, in order; marks fire
 *   once the frame holding the audio before them has been played, extra frames included, and
 *   `clear` empties the queue and forgets what was owed.
 * - A faster-than-real-time source (speech synthesis sending a whole sentence at once) never runs
 *   dry while its sentence plays, and comes back from a pause with more than it missed, so nothing
 *   is owed to it and its queue plays at exactly one frame per tick. Its lead is its own.
 * - The phone never gets more frames than ticks passed: each extra frame stands for a tick at
 *   which the phone got nothing from this source, and at most MAX_OWED_FRAMES are owed, so a phone
 *   jitter buffer that ran dry and re-armed at 2 frames holds at most 7 (the Android app's drops
 *   past 8).
 * - A source whose arrivals keep straddling its tick keeps its spare frame (rule 2 sees a tick
 *   with one frame), so it does not flip between a missed tick and a double frame.
 */
export const MAX_OWED_FRAMES = 5;
export const EVIDENCE_TICKS = 50;
export const PAUSE_TICKS = 50;

/** The catch-up state of one source, fed once per tick. Pure. */
export class CatchUp {
  private owed = 0;
  /** Ticks since the source last pushed audio. */
  private sincePush = 0;
  /** Ticks without a push before its latest run of pushes, and the bytes that run has brought. */
  private silence = 0;
  private sentSince = 0;
  /** Ticks in a row with nothing queued since the source last played (0 while it plays or idles). */
  private dry = 0;
  private playing = false;
  private leastFrames = Number.POSITIVE_INFINITY;
  private windowTicks = 0;
  private allowed = 0;

  /** Frames owed to the source (for tests and logs). */
  get owedFrames(): number {
    return this.owed;
  }

  /** The source pushed `bytes` of audio. */
  pushed(bytes: number): void {
    if (this.sincePush > 1) {
      this.silence = this.sincePush;
      this.sentSince = 0;
    }
    this.sentSince += bytes;
    this.sincePush = 0;
  }

  /** At a tick, before the source plays: the bytes it has queued. */
  tick(queuedBytes: number): void {
    this.sincePush += 1;
    if (queuedBytes === 0) {
      if (this.playing || this.dry > 0) this.dry += 1;
      this.playing = false;
      this.leastFrames = 0;
    } else {
      const frames = Math.floor(queuedBytes / FRAME_BYTES);
      if (this.dry > 0) {
        const late = this.silence <= PAUSE_TICKS && this.sentSince <= (this.silence + 1) * FRAME_BYTES;
        if (late) this.owed = Math.min(MAX_OWED_FRAMES, this.owed + this.dry);
        else this.owed = this.allowed = 0;
      }
      this.dry = 0;
      this.playing = true;
      this.leastFrames = Math.min(this.leastFrames, frames);
    }
    if (++this.windowTicks < EVIDENCE_TICKS) return;
    this.allowed = this.leastFrames >= 2 ? Math.min(this.owed, this.leastFrames - 1) : 0;
    this.windowTicks = 0;
    this.leastFrames = Number.POSITIVE_INFINITY;
  }

  /** After the regular frame: whether to play one extra frame now, `queuedBytes` being what is left. Counts it as given back. */
  takeExtra(queuedBytes: number): boolean {
    if (this.allowed === 0 || this.owed === 0 || queuedBytes < FRAME_BYTES) return false;
    this.allowed -= 1;
    this.owed -= 1;
    // The window so far saw the deeper queue: the next evidence starts after the catch-up.
    this.windowTicks = 0;
    this.leastFrames = Number.POSITIVE_INFINITY;
    return true;
  }

  /** `clear`: nothing is queued any more and nothing is owed. */
  reset(): void {
    this.owed = 0;
    this.silence = 0;
    this.sentSince = 0;
    this.dry = 0;
    this.playing = false;
    this.allowed = 0;
    this.windowTicks = 0;
    this.leastFrames = Number.POSITIVE_INFINITY;
  }
}
