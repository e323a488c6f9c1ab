import { BYTES_PER_SAMPLE, SAMPLE_RATE } from './constants.js';

/**
 * Time beyond a source's own rhythm before its partial frame is padded: the jitter of its timer
 * and of ours (±10 ms each), the network's, plus a busy event loop's delay in reading what it sent.
 * 60 ms padded 54 ms per minute of speech in the bench at a load of 2.5 (an agent process stalled
 * past it); 120 ms padded none at loads up to 6.7. It delays only an answer's last partial frame.
 */
export const HOLD_SLACK_MS = 120;
/** A gap between pushes longer than a second is a pause, whatever the rhythm was (catch-up.ts uses the same bound). */
export const MAX_RHYTHM_MS = 1000;
/** The rhythm is the longest of this many recent intervals between pushes in the same stretch of speech. */
export const RHYTHM_WINDOW = 4;
const BYTES_PER_MS = (SAMPLE_RATE * BYTES_PER_SAMPLE) / 1000;

/**
 * When one source's last partial frame (less than 20 ms at the end of its queue) may be played
 * padded with silence. Pure: fed the source's pushes and marks with their times.
 *
 * A source that streams in real time in chunks that are not whole frames (758 bytes of mu-law,
 * 250 ms, 37 ms) leaves a partial frame at the end of each chunk. Padding it at once inserts
 * silence into its speech at every chunk; it waits instead for the rest of its audio, and is
 * padded only once the source has truly stopped:
 *
 * 1. Rhythm: the next push is expected within the longer of the last chunk's duration and the
 *    longest of the source's last RHYTHM_WINDOW intervals between pushes that came in time (both
 *    at most MAX_RHYTHM_MS), plus HOLD_SLACK_MS. Once that has passed with nothing new, the source
 *    has stopped (it paused, or its answer ended): its partial frame may be padded. The wait adds
 *    latency only to that last partial frame, and only for a source that was streaming in real
 *    time: a source that sent ahead (a sentence at once) reaches its partial frame long after the
 *    deadline, and plays it at once.
 * 2. A mark behind the partial frame pads it at once, if this source's marks end its speech: a
 *    mark after which it stopped (rule 1) teaches that, and a mark followed by more audio in time
 *    unteaches it. A source that marks every chunk (OpenAI's Twilio samples do) is thus never
 *    taken to stop at each mark; the first mark of a source waits like rule 1.
 * 3. A source whose queue holds only whole frames is never held: its latency does not change.
 *
 * Marks stay exact either way (playout.ts): a mark fires once the audio before it has played, so
 * a mark behind a waiting partial frame waits with it.
 */
export class Continuity {
  private lastPushAt = -Infinity;
  /** How long after the last push the next one is expected (rule 1, without the slack). */
  private expectedMs = 0;
  private readonly intervals: number[] = [];
  private markBehind = false;
  private marksEndSpeech = false;

  /** The source pushed `bytes` of audio (16 kHz s16le) at `now` (ms). */
  pushed(bytes: number, now: number): void {
    const gap = now - this.lastPushAt;
    const inTime = gap <= this.expectedMs + HOLD_SLACK_MS;
    if (this.markBehind) this.marksEndSpeech = !inTime;
    if (inTime) {
      this.intervals.push(Math.min(gap, MAX_RHYTHM_MS));
      if (this.intervals.length > RHYTHM_WINDOW) this.intervals.shift();
    }
    let expected = Math.min(bytes / BYTES_PER_MS, MAX_RHYTHM_MS);
    for (const interval of this.intervals) if (interval > expected) expected = interval;
    this.expectedMs = expected;
    this.lastPushAt = now;
    this.markBehind = false;
  }

  /** The source queued a mark behind all the audio it pushed so far. */
  marked(): void {
    this.markBehind = true;
  }

  /** The source's queue was cleared: nothing is waiting behind a mark any more. */
  cleared(): void {
    this.markBehind = false;
  }

  /** The time (ms) from which the source's partial frame may be padded. */
  padFrom(): number {
    if (this.markBehind && this.marksEndSpeech) return this.lastPushAt;
    return this.lastPushAt + this.expectedMs + HOLD_SLACK_MS;
  }

  /** True when the source's partial frame may be padded at `now`. */
  mayPad(now: number): boolean {
    return now >= this.padFrom();
  }
}
