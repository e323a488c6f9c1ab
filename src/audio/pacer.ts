import { CatchUp } from './catch-up.js';
import { FRAME_MS } from './constants.js';
import type { PlayoutBuffer } from './playout.js';

/** Frames a call may send ahead of its clock: a real-time source up to 40 ms late loses nothing. */
export const BURST_FRAMES = 3;
/**
 * Most frames the phone's jitter buffer holds (android core JitterBuffer, PhoneClient's
 * jitterMaxFrames): of more frames sent at once it keeps the newest and drops the rest.
 */
export const PHONE_BUFFER_FRAMES = 8;
/** Most tokens a stall of the gateway's own event loop keeps, above the burst, for the frames that came during it. */
const MAX_STALL_FRAMES = PHONE_BUFFER_FRAMES - BURST_FRAMES;
/** A whole token, give or take the rounding of tokens counted from time. */
const WHOLE = 1 - 1e-9;


/**
 * Paces one call's play-out: one frame per 20 ms on average, sent as soon as it may go rather than
 * at the next tick. This is the catch-up rule that keeps a real-time source's queue about one
 * frame deep (docs/performance.md):
 *
 * 1. A token bucket: a token per 20 ms, up to BURST_FRAMES; each frame sent takes one. A frame
 *    goes out the moment it is queued if a token is there (after a push), else at the next tick of
 *    the frame clock. Audio shorter than a frame at the end of a source's queue waits for the rest
 *    of its audio while the source is still streaming, and goes out padded with silence once it
 *    has stopped (continuity.ts; never while a stall's tokens are kept, rule 4, since what the
 *    source sent during the stall has not been read yet). The tokens a call has had are the more
 *    of its ticks and its time since it started, so a tick that is late (the event loop was busy)
 *    does not hold back a frame that came in time, and one a little early does not leave a frame
 *    for the next.
 * 2. So a real-time source (an echo, a model streaming 20 ms chunks) is relayed as its frames come,
 *    and one that comes late by up to BURST_FRAMES - 1 ticks finds its tokens waiting: its queue
 *    does not grow. For a longer lateness, the tokens its silence lost are given back when it
 *    comes back, up to 100 ms of them, by CatchUp (catch-up.ts): only for lateness, never after a
 *    pause; what is left of a backlog after that goes a token a second.
 * 3. A faster-than-real-time source (speech synthesis sending a whole sentence at once) spends the
 *    bucket's few tokens at once and then plays at exactly one frame per tick: nothing of it is
 *    dropped, and only lateness is ever given back, so its lead is its own.
 * 4. A stall of the gateway's own event loop is no lateness of the source: the frames that came
 *    during it wait in the socket, and Node runs the late timer (a tick, with nothing queued yet)
 *    before it reads them. So the tokens a stall brings beyond one tick's are kept, above the
 *    burst, for one frame's time: the frames read right after it go at once, as a relay would send
 *    them. A source that sends later than that finds the bucket back at BURST_FRAMES.
 * 5. No rule gives more than PHONE_BUFFER_FRAMES tokens at once: the phone would drop the oldest of
 *    what it cannot hold, so a longer stall's excess waits and plays at one frame per tick.
 *
 * Marks and `clear` stay exact: a frame is built by `PlayoutBuffer.nextFrame`, which fires the
 * marks whose audio it holds, whenever it is sent; `clear` empties the queue (and forgets what was
 * owed); tokens are no audio. CatchUp sees the audio the call could play now: a partial frame that
 * waits for the rest of its audio is none.
 */
export class PlayoutPacer {
  /** A call's bucket starts empty, and fills from its clock's first tick. */
  private tokens = 0;
  private firstTickAt: number | undefined;
  private ticks = 0;
  /** Tokens given so far, including those the full bucket could not keep. */
  private given = 0;
  private playedSinceTick = false;
  private sending = false;
  /** Rule 4: tokens kept above the burst after a stall of the event loop, and until when. */
  private stallTokens = 0;
  private stallUntil = 0;
  private readonly catchUp = new CatchUp();

  constructor(
    private readonly buffer: PlayoutBuffer,
    private readonly send: (frame: Buffer) => void,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** After a source pushed `bytes` into the buffer: sends the whole frames that may go now. */
  pushed(bytes: number): void {
    this.catchUp.pushed(bytes);
    this.fill();
    this.sendReady(this.padAt());
    this.keepBurst();
  }

  /** A source was cleared. */
  cleared(): void {
    this.catchUp.reset();
  }

  /** One tick of the frame clock. */
  tick(): void {
    this.ticks += 1;
    this.firstTickAt ??= this.now();
    this.fill();
    const padAt = this.padAt();
    const playable = this.buffer.playableBytes(padAt);
    this.tokens = Math.min(PHONE_BUFFER_FRAMES, this.tokens + this.catchUp.tick(this.playedSinceTick, playable, this.tokens >= BURST_FRAMES && playable === 0));
    this.playedSinceTick = false;
    this.sendReady(padAt);
    if (this.catchUp.paceToken()) {
      this.tokens = Math.min(BURST_FRAMES, this.tokens) + 1;
      this.sendReady(padAt);
    }
    this.keepBurst();
  }

  /** The time partial frames are padded at: none while a stall's tokens are kept (rule 4: the reads it held up come first). */
  private padAt(): number {
    const now = this.now();
    return this.stallTokens > 0 && now < this.stallUntil ? -Infinity : now;
  }

  /**
   * Adds the tokens the ticks or the time since the last fill bring, whichever are more. Frames
   * waiting spend them all (after a stall, the backlog goes at once, as every overdue tick always
   * sent its frame); what is left is then kept to BURST_FRAMES by `keepBurst`.
   */
  private fill(): void {
    if (this.firstTickAt === undefined) return;
    const due = Math.max(this.ticks, 1 + (this.now() - this.firstTickAt) / FRAME_MS);
    if (due <= this.given) return;
    const brought = due - this.given;
    // Never more than the phone holds: what a stall brought beyond that the phone would drop, so it is lost time, not owed frames.
    this.tokens = Math.min(PHONE_BUFFER_FRAMES, this.tokens + brought);
    this.given = due;
    if (brought > 2) {
      this.stallTokens = Math.min(MAX_STALL_FRAMES, brought - 1);
      this.stallUntil = this.now() + FRAME_MS;
    }
  }

  private keepBurst(): void {
    const kept = this.stallTokens > 0 && this.now() < this.stallUntil ? BURST_FRAMES + this.stallTokens : BURST_FRAMES;
    if (this.tokens > kept) this.tokens = kept;
  }

  private sendReady(padAt: number): void {
    while (!this.sending && this.tokens >= WHOLE && this.buffer.frameReady(padAt)) this.sendOne(padAt);
  }

  /**
   * Builds and sends the next frame. A mark listener may push more audio while the frame is built:
   * that push sends nothing (the frame before it is not sent yet); the caller's loop sends it.
   */
  private sendOne(padAt: number): void {
    if (this.sending) return;
    this.sending = true;
    try {
      const frame = this.buffer.nextFrame(padAt);
      if (!frame) return;
      this.tokens -= 1;
      this.playedSinceTick = true;
      this.send(frame);
    } finally {
      this.sending = false;
    }
  }
}
