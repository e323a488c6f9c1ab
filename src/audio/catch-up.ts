import { FRAME_BYTES } from './constants.js';

/** Most frames owed to a call at once (100 ms): see CatchUp. */
export const MAX_OWED_FRAMES = 5;
/** How long a standing frame must have stood before a catch-up frame may remove it (one second). */
export const EVIDENCE_TICKS = 50;
/** A silence longer than this (one second, the frame clock's own catch-up bound) is a pause, never lateness. */
export const PAUSE_TICKS = 50;

/**
 * The second half of the catch-up rule (pacer.ts has the first): what to give back after a
 * lateness longer than the pacer's burst could absorb. Fed once per tick by the pacer. Pure.
 *
 * 1. Owed ticks: while the call's audio had stopped, each tick whose token the pacer could not
 *    keep (its bucket was full) is a frame the phone did not get. They are owed (at most
 *    MAX_OWED_FRAMES) only if the call was late, not pausing: when what its sources send after the
 *    silence is no more than that silence should have held, plus one frame in flight, and the
 *    silence lasted at most PAUSE_TICKS. Coming back with more (an answer sent ahead), or later,
 *    is a pause: it clears what was owed.
 * 2. Evidence: what is owed may be given back only when at least one whole frame stayed queued
 *    after every tick of the last EVIDENCE_TICKS (a backlog the arrivals never needed), and at
 *    most one more than the least that stayed: that backlog, and the token that lets the frames
 *    after it go as they come again.
 * 3. Giving back: such a tick gives the pacer one extra token, which plays one extra frame when a
 *    whole frame is queued. Never more than one per tick.
 * 4. A source that streams in real time (it pushed between at least EVIDENCE_TICKS - 5 of the last
 *    EVIDENCE_TICKS ticks, no more than one frame per tick in all) but whose every frame had to
 *    wait for a tick (the pacer's tokens were spent by an earlier burst, say its first frames, or
 *    a stall whose cost was not owed) gets one token once a second, until its frames go as they
 *    come again. A source that sent ahead (a sentence at once) pushes more than that, or does not
 *    stream: it is never hurried.
 */
export class CatchUp {
  private owed = 0;
  /** Ticks since the call's sources last pushed, and the silence before their latest pushes with what those brought. */
  private sincePush = 0;
  private silence = 0;
  private sentSince = 0;
  /** Ticks in a row at which the call had neither played nor had anything queued, and the tokens lost in them. */
  private dry = 0;
  private lostTokens = 0;
  private playing = false;
  private leastLeft = Number.POSITIVE_INFINITY;
  private windowTicks = 0;
  private allowed = 0;
  /** Rule 4, over the current window: ticks that found a whole frame waiting, ticks after a push, bytes pushed. */
  private waitedTicks = 0;
  private pushTicks = 0;
  private windowBytes = 0;
  private paceToken = false;

  /** Frames owed to the call (for tests and logs). */
  get owedFrames(): number {
    return this.owed;
  }

  /** A source pushed `bytes` of audio. */
  pushed(bytes: number): void {
    if (this.sincePush > 0) this.pushTicks += 1;
    this.windowBytes += bytes;
    if (this.sincePush > 1) {
      this.silence = this.sincePush;
      this.sentSince = 0;
    }
    this.sentSince += bytes;
    this.sincePush = 0;
  }

  /**
   * At a tick, before it plays: whether a frame went out since the last tick, the bytes queued,
   * and whether this tick's token is lost (the bucket is full and nothing is queued).
   */
  tick(playedSinceLastTick: boolean, queuedBytes: number, tokenLost: boolean): void {
    this.sincePush += 1;
    if (queuedBytes >= FRAME_BYTES) this.waitedTicks += 1;
    if (!playedSinceLastTick && queuedBytes === 0) {
      if (this.playing || this.dry > 0) {
        this.dry += 1;
        if (tokenLost) this.lostTokens += 1;
      }
      this.playing = false;
      return;
    }
    if (this.dry > 0) {
      const late = this.silence <= PAUSE_TICKS && this.sentSince <= (this.silence + 1) * FRAME_BYTES;
      if (late) this.owed = Math.min(MAX_OWED_FRAMES, this.owed + this.lostTokens);
      else this.owed = this.allowed = 0;
    }
    this.dry = 0;
    this.lostTokens = 0;
    this.playing = true;
  }

  /** After the tick's frames: the bytes still queued. True when the pacer gets one extra token now (it counts as given back). */
  extraToken(queuedBytes: number): boolean {
    this.leastLeft = Math.min(this.leastLeft, Math.floor(queuedBytes / FRAME_BYTES));
    if (++this.windowTicks >= EVIDENCE_TICKS) {
      this.allowed = this.leastLeft >= 1 ? Math.min(this.owed, this.leastLeft + 1) : 0;
      this.paceToken =
        this.allowed === 0 &&
        this.waitedTicks >= EVIDENCE_TICKS && this.pushTicks >= EVIDENCE_TICKS - 5 && this.windowBytes <= (EVIDENCE_TICKS + 1) * FRAME_BYTES;
      this.restartWindow();
    }
    if (this.paceToken) {
      this.paceToken = false;
      return true;
    }
    if (this.allowed === 0 || this.owed === 0) return false;
    this.allowed -= 1;
    this.owed -= 1;
    // The window so far saw the longer queue: the next evidence starts after the catch-up.
    this.restartWindow();
    return true;
  }

  /** `clear`: what was queued is gone, and so is what was owed. */
  reset(): void {
    this.owed = 0;
    this.allowed = 0;
    this.paceToken = false;
    this.silence = 0;
    this.sentSince = 0;
    this.dry = 0;
    this.lostTokens = 0;
    this.playing = false;
    this.restartWindow();
  }

  private restartWindow(): void {
    this.windowTicks = 0;
    this.leastLeft = Number.POSITIVE_INFINITY;
    this.waitedTicks = 0;
    this.pushTicks = 0;
    this.windowBytes = 0;
  }
}
