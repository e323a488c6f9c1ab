import { describe, expect, it } from 'vitest';
import { EVIDENCE_TICKS, MAX_OWED_FRAMES, PAUSE_TICKS } from './catch-up.js';
import { FRAME_BYTES } from './constants.js';
import { PlayoutBuffer } from './playout.js';

/** Frame number `n` of a source: every sample holds n + 1, so a played frame tells which it was. */
const numbered = (n: number): Buffer => Buffer.alloc(FRAME_BYTES, 0).fill(Buffer.from(new Int16Array([n + 1]).buffer));
const numberOf = (frame: Buffer): number => frame.readInt16LE(0) - 1;

/**
 * One call's play-out driven tick by tick, as CallAudio drives it: the regular frame, then the
 * catch-up frame if any. `arrivals(tick)` says how many frames of the source arrive before that tick.
 */
function drive(ticks: number, arrivals: (tick: number) => number, buffer = new PlayoutBuffer()): { perTick: number[][]; played: number[]; queuedAtEnd: number } {
  let next = 0;
  const perTick: number[][] = [];
  const played: number[] = [];
  for (let t = 0; t < ticks; t++) {
    for (let k = arrivals(t); k > 0; k--) buffer.push('rt', numbered(next++));
    const out: number[] = [];
    const frame = buffer.nextFrame();
    if (frame) out.push(numberOf(frame));
    const extra = buffer.nextCatchUpFrame();
    if (extra) out.push(numberOf(extra));
    perTick.push(out);
    played.push(...out);
  }
  return { perTick, played, queuedAtEnd: buffer.pendingBytes('rt') / FRAME_BYTES };
}

const inOrder = (played: number[]) => played.every((n, i) => n === i);
const extraTicks = (perTick: number[][]) => perTick.flatMap((out, t) => (out.length === 2 ? [t] : []));

describe('catch-up of a real-time source', () => {
  it('gives back a tick the source missed once a second shows the spare frame was never needed', () => {
    // One frame a tick, except that frame 10 arrives just after its tick (with frame 11).
    const { perTick, played, queuedAtEnd } = drive(200, (t) => (t === 10 ? 0 : t === 11 ? 2 : 1));
    expect(perTick[10]).toEqual([]);
    // From the late frame on, every frame waits a tick longer: one frame more is queued at each tick ...
    expect(perTick[11]).toEqual([10]);
    // ... until the evidence window closes: then one extra frame, and the queue is one frame deep again.
    const extras = extraTicks(perTick);
    expect(extras).toHaveLength(1);
    expect(extras[0]).toBeGreaterThan(11);
    expect(extras[0]).toBeLessThanOrEqual(11 + 2 * EVIDENCE_TICKS);
    expect(perTick.slice(12).filter((out) => out.length !== 1)).toEqual([[extras[0]! - 1, extras[0]!]]);
    expect(queuedAtEnd).toBe(0);
    expect(inOrder(played)).toBe(true);
    expect(played).toHaveLength(200);
  });

  it('gives back every tick of a short stall, one extra frame per tick, nothing dropped', () => {
    // Four ticks without audio (a 80 ms stall), then the four late frames at once.
    const { perTick, played, queuedAtEnd } = drive(300, (t) => (t >= 20 && t < 24 ? 0 : t === 24 ? 5 : 1));
    expect(extraTicks(perTick)).toHaveLength(4);
    expect(Math.max(...perTick.map((out) => out.length))).toBe(2);
    expect(queuedAtEnd).toBe(0);
    expect(inOrder(played)).toBe(true);
  });

  it(`owes at most ${MAX_OWED_FRAMES} frames however often the source is late`, () => {
    // Three stalls of 3, 5 and 7 ticks: the spare frames left by each absorb part of the next, so
    // the source misses 3 + 2 + 2 = 7 ticks in all, and is owed 5 of them.
    const stalls = [
      { from: 5, ticks: 3 },
      { from: 20, ticks: 5 },
      { from: 40, ticks: 7 },
    ];
    const arrivals = (t: number): number => {
      for (const s of stalls) {
        if (t >= s.from && t < s.from + s.ticks) return 0;
        if (t === s.from + s.ticks) return s.ticks + 1;
      }
      return 1;
    };
    const { perTick, played, queuedAtEnd } = drive(400, arrivals);
    expect(perTick.filter((out) => out.length === 0)).toHaveLength(7);
    expect(extraTicks(perTick)).toHaveLength(MAX_OWED_FRAMES);
    expect(queuedAtEnd).toBe(7 - MAX_OWED_FRAMES);
    expect(inOrder(played)).toBe(true);
  });

  it('owes nothing after a pause: a source that comes back with more than it missed, or after a second, was not late', () => {
    // 100 ms without audio, then 300 ms of it at once, then real time again.
    const ahead = drive(300, (t) => (t < 20 ? 1 : t < 25 ? 0 : t === 25 ? 15 : 1));
    expect(extraTicks(ahead.perTick)).toEqual([]);
    expect(inOrder(ahead.played)).toBe(true);
    // More than a second without audio, then real time.
    const paused = drive(400, (t) => (t < 20 ? 1 : t < 20 + PAUSE_TICKS + 1 ? 0 : 1));
    expect(extraTicks(paused.perTick)).toEqual([]);
  });

  it('owes a stall of up to a second in full, up to its bound, however long the source was late', () => {
    // 300 ms without audio, then the 15 late frames (and the one due now) at once.
    const { perTick, played, queuedAtEnd } = drive(400, (t) => (t >= 20 && t < 35 ? 0 : t === 35 ? 16 : 1));
    expect(extraTicks(perTick)).toHaveLength(MAX_OWED_FRAMES);
    expect(queuedAtEnd).toBe(15 - MAX_OWED_FRAMES);
    expect(inOrder(played)).toBe(true);
  });

  it('keeps the spare frame of a source whose arrivals keep straddling its tick, instead of flipping', () => {
    // Late every 40 ticks: each window sees a tick with only one frame queued.
    const { perTick, played } = drive(1000, (t) => (t > 0 && t % 40 === 0 ? 0 : t > 1 && t % 40 === 1 ? 2 : 1));
    expect(extraTicks(perTick)).toEqual([]);
    expect(inOrder(played)).toBe(true);
  });

  it('never hurries a faster-than-real-time source: a sentence sent at once plays at one frame per tick', () => {
    const buffer = new PlayoutBuffer();
    // Two sentences of 3 s, each sent at once, 2 s apart; speech before them ended with a late frame.
    const { perTick, played } = drive(
      800,
      (t) => (t < 10 ? 1 : t === 11 ? 1 : t === 100 ? 150 : t === 350 ? 150 : 0),
      buffer,
    );
    expect(extraTicks(perTick)).toEqual([]);
    expect(perTick.slice(100, 250).every((out) => out.length === 1)).toBe(true);
    expect(played).toHaveLength(311);
    expect(inOrder(played)).toBe(true);
  });

  it('fires marks exactly: as the frame that plays the audio before them is built, extra frames included', () => {
    const log: string[] = [];
    const buffer = new PlayoutBuffer((_source, name) => log.push(name));
    let next = 0;
    let extras = 0;
    for (let tick = 0; tick < 200; tick++) {
      const arriving = tick === 10 ? 0 : tick === 11 ? 2 : 1;
      for (let k = 0; k < arriving; k++) {
        buffer.push('rt', numbered(next));
        buffer.mark('rt', `mark-${next}`);
        next++;
      }
      const frame = buffer.nextFrame();
      if (frame) log.push(`frame-${numberOf(frame)}`);
      const extra = buffer.nextCatchUpFrame();
      if (extra) {
        extras++;
        log.push(`frame-${numberOf(extra)}`);
      }
    }
    expect(extras).toBe(1);
    // Each mark fires once, in order, while the frame holding the audio before it is handed out.
    expect(log).toEqual(Array.from({ length: 200 }, (_, n) => [`mark-${n}`, `frame-${n}`]).flat());
  });

  it('forgets what was owed on clear', () => {
    const buffer = new PlayoutBuffer();
    let cleared = false;
    // One tick owed from a late frame, then a clear, then the source sends one frame ahead on purpose.
    const { perTick, queuedAtEnd } = drive(
      300,
      (t) => {
        if (t === 30 && !cleared) {
          buffer.clear('rt');
          cleared = true;
        }
        return t === 10 ? 0 : t === 11 || t === 30 ? 2 : 1;
      },
      buffer,
    );
    expect(extraTicks(perTick)).toEqual([]);
    expect(queuedAtEnd).toBe(1);
  });
});
