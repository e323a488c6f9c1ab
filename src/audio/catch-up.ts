import { FRAME_BYTES } from './constants.js';

/** Most frames given back at once after a lateness (100 ms): see CatchUp. */
export const MAX_OWED_FRAMES = 5;
/** How long a source must have streamed in real time with every frame waiting before rule 3 gives it a token (one second). */
export const EVIDENCE_TICKS = 50;
/** A silence longer than this (one second, the frame clock's own catch-up bound) is a pause, never lateness. */
export const PAUSE_TICKS = 50;

/**
 * The second half of the catch-up rule (pacer.ts has the first): what to give back when a call's
 * audio comes later than its bucket could absorb. Fed once per tick by the pacer. Pure.
 *
 * 1. Lost tokens: while the call's audio had stopped, each tick at which the pacer's bucket was
 *    already full lost its token: a frame the phone did not get.
 * 2. Lateness: when audio comes back, the lost tokens (at most MAX_OWED_FRAMES) are given back at
 *    once, so the late frames go now instead of queueing for the rest of the call, if the call
 *    was late, not pausing: what its sources sent after the silence is no more than that silence
 *    should have held, plus one frame in flight, and the silence lasted at most PAUSE_TICKS.
 *    Coming back with more (an answer sent ahead), or later, is a pause: nothing is given back.
 * 3. A source that streams in real time (it pushed between at least EVIDENCE_TICKS - 5 of the last
 *    EVIDENCE_TICKS ticks, no more than one frame per tick in all) but whose every frame had to
 *    wait for a tick (its backlog outlived what rule 2 gave back, or an early burst spent the
 *    bucket) gets one token a second, until its frames go as they come again. A source that sent
 *    ahead (a sentence at once) pushes more than that, or does not stream: it is never hurried.
 */
export class CatchUp {
  /** Ticks since the call's sources last pushed, and the silence before their latest pushes with what those brought. */
  private sincePush = 0;
  private silence = 0;
  private sentSince = 0;
  /** Ticks in a row at which the call had neither played nor had anything queued, and the tokens lost in them. */
  private dry = 0;
  private lostTokens = 0;
  private playing = false;
  /** Rule 3, over the current window: ticks, ticks that found a whole frame waiting, ticks after a push, bytes pushed. */
  private windowTicks = 0;
  private waitedTicks = 0;
  private pushTicks = 0;
  private windowBytes = 0;

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
   * At a tick, before it plays: whether a frame went out since the last tick, the bytes queued, and
   * whether this tick's token is lost (the bucket is full and nothing is queued). Returns the tokens
   * to give back now (rule 2).
   */
  tick(playedSinceLastTick: boolean, queuedBytes: number, tokenLost: boolean): number {
    this.sincePush += 1;
    if (queuedBytes >= FRAME_BYTES) this.waitedTicks += 1;
    if (!playedSinceLastTick && queuedBytes === 0) {
      if (this.playing || this.dry > 0) {
        this.dry += 1;
        if (tokenLost) this.lostTokens += 1;
      }
      this.playing = false;
      return 0;
    }
    let back = 0;
    if (this.dry > 0 && this.silence <= PAUSE_TICKS && this.sentSince <= (this.silence + 1) * FRAME_BYTES) {
      back = Math.min(MAX_OWED_FRAMES, this.lostTokens);
    }
    this.dry = 0;
    this.lostTokens = 0;
    this.playing = true;
    return back;
  }

  /** After the tick's frames: true when the pacer gets one token now (rule 3). */
  paceToken(): boolean {
    if (++this.windowTicks < EVIDENCE_TICKS) return false;
    const streaming = this.pushTicks >= EVIDENCE_TICKS - 5 && this.windowBytes <= (EVIDENCE_TICKS + 1) * FRAME_BYTES;
    const give = streaming && this.waitedTicks >= EVIDENCE_TICKS;
    this.restartWindow();
    return give;
  }

  /** `clear`: what was queued is gone, and so is what was lost. */
  reset(): void {
    this.silence = 0;
    this.sentSince = 0;
    this.dry = 0;
    this.lostTokens = 0;
    this.playing = false;
    this.restartWindow();
  }

  private restartWindow(): void {
    this.windowTicks = 0;
    this.waitedTicks = 0;
    this.pushTicks = 0;
    this.windowBytes = 0;
  }
}
