import { describe, expect, it } from 'vitest';
import { EVIDENCE_TICKS, MAX_OWED_FRAMES, PAUSE_TICKS } from './catch-up.js';
import { FRAME_BYTES } from './constants.js';
import { HOLD_SLACK_MS } from './continuity.js';
import { BURST_FRAMES, PHONE_BUFFER_FRAMES, PlayoutPacer } from './pacer.js';
import { PlayoutBuffer } from './playout.js';

/** Frame number `n` of a source: every sample holds n + 1, so a played frame tells which it was. */
const numbered = (n: number): Buffer => Buffer.alloc(FRAME_BYTES).fill(Buffer.from(new Int16Array([n + 1]).buffer));
const numberOf = (frame: Buffer): number => frame.readInt16LE(0) - 1;

interface Sent {
  frame: number;
  /** When it was sent: tick t, or t - 0.5 for a send right after a push between ticks t - 1 and t. */
  at: number;
}

/**
 * One call driven tick by tick, as CallAudio drives it. Before tick t, `arrivals(t)` frames of one
 * source arrive (at t - 0.5); frames are numbered in the order they arrive.
 */
function drive(ticks: number, arrivals: (tick: number) => number, setup?: (buffer: PlayoutBuffer, pacer: PlayoutPacer) => void) {
  const sent: Sent[] = [];
  const pushedAt: number[] = [];
  let now = 0;
  const buffer = new PlayoutBuffer();
  const pacer = new PlayoutPacer(buffer, (frame) => sent.push({ frame: numberOf(frame), at: now }));
  setup?.(buffer, pacer);
  // The call's clock has ticked a while before its audio starts: the bucket is full.
  for (let t = 0; t < BURST_FRAMES; t++) pacer.tick();
  for (let t = 0; t < ticks; t++) {
    now = t - 0.5;
    for (let k = arrivals(t); k > 0; k--) {
      pushedAt.push(now);
      buffer.source('rt').push(numbered(pushedAt.length - 1));
      pacer.pushed(FRAME_BYTES);
    }
    now = t;
    pacer.tick();
  }
  /** How long each frame waited, in ticks. */
  const waited = sent.map((s) => s.at - pushedAt[s.frame]!);
  /** Frames sent in the interval ending at each tick (after the push before it, through the tick). */
  const perInterval = Array.from({ length: ticks }, (_, t) => sent.filter((s) => s.at === t || s.at === t - 0.5).length);
  return { sent, waited, perInterval, queued: buffer.pendingBytes() / FRAME_BYTES, buffer, pacer };
}

/** One call on a clock the test sets (`now`, in ms); `sent` lists the frames sent, by number. */
class TimedCall {
  now = 0;
  readonly sent: number[] = [];
  readonly buffer = new PlayoutBuffer();
  readonly pacer = new PlayoutPacer(this.buffer, (frame) => this.sent.push(numberOf(frame)), () => this.now);
}

const inOrder = (sent: Sent[]) => sent.every((s, i) => s.frame === i);

describe('pacing of a call', () => {
  it('relays a real-time source as its frames come: no frame waits for a tick', () => {
    const { sent, waited, perInterval } = drive(200, () => 1);
    expect(sent).toHaveLength(200);
    expect(waited.every((w) => w === 0)).toBe(true);
    expect(perInterval.every((n) => n === 1)).toBe(true);
    expect(inOrder(sent)).toBe(true);
  });

  it(`sends a burst of at most ${BURST_FRAMES} frames, then one per tick: audio sent at once plays in real time`, () => {
    const { sent, perInterval } = drive(120, (t) => (t === 10 ? 100 : 0));
    expect(perInterval[10]).toBe(BURST_FRAMES + 1);
    expect(perInterval.slice(11, 10 + 100 - BURST_FRAMES)).toEqual(Array(100 - BURST_FRAMES - 1).fill(1));
    expect(perInterval.slice(10 + 100 - BURST_FRAMES).every((n) => n === 0)).toBe(true);
    expect(sent).toHaveLength(100);
    expect(inOrder(sent)).toBe(true);
  });

  it('starts with an empty bucket: a new call sends nothing before its clock ticks', () => {
    const frames: Buffer[] = [];
    const buffer = new PlayoutBuffer();
    const pacer = new PlayoutPacer(buffer, (frame) => frames.push(frame));
    buffer.source('a').push(Buffer.alloc(10 * FRAME_BYTES, 1));
    pacer.pushed(10 * FRAME_BYTES);
    expect(frames).toHaveLength(0);
    pacer.tick();
    expect(frames).toHaveLength(1);
  });

  it("counts tokens from the time too: frames that come while the clock's ticks are late still go as they come", () => {
    const call = new TimedCall();
    const { sent, buffer, pacer } = call;
    for (let t = 1; t <= BURST_FRAMES; t++) {
      call.now = t * 20;
      pacer.tick();
    }
    // Ten frames, one every 20 ms, while no tick comes (the event loop was busy elsewhere).
    for (let n = 0; n < 10; n++) {
      call.now = 70 + n * 20;
      buffer.source('rt').push(numbered(n));
      pacer.pushed(FRAME_BYTES);
      expect(sent).toHaveLength(n + 1);
    }
    // And the late ticks give no more than the time did.
    call.now = 270;
    for (let t = 0; t < 10; t++) pacer.tick();
    buffer.source('rt').push(Buffer.alloc(5 * FRAME_BYTES));
    pacer.pushed(5 * FRAME_BYTES);
    expect(sent.length - 10).toBeLessThanOrEqual(BURST_FRAMES);
  });

  it('sends every frame that came due while its clock was late, not only a burst: queued audio keeps its real-time schedule', () => {
    const call = new TimedCall();
    const { sent, buffer, pacer } = call;
    for (let n = 0; n < 50; n++) buffer.source('tts').push(numbered(n));
    pacer.pushed(50 * FRAME_BYTES);
    for (let t = 1; t <= 10; t++) {
      call.now = t * 20;
      pacer.tick();
    }
    expect(sent).toHaveLength(10);
    // The event loop was busy for 100 ms: the next tick comes late, and the five frames due go at once.
    call.now = 300;
    pacer.tick();
    expect(sent).toHaveLength(15);
    // The overdue ticks that follow it bring nothing more.
    for (let t = 0; t < 4; t++) pacer.tick();
    expect(sent).toHaveLength(15);
    expect(sent).toEqual(Array.from({ length: 15 }, (_, i) => i));
  });

  it("relays what came in during the gateway's own stall at once, though the late tick runs before the socket reads", () => {
    const call = new TimedCall();
    const { sent, buffer, pacer } = call;
    let n = 0;
    const arrive = (count: number) => {
      for (let k = 0; k < count; k++) buffer.source('rt').push(numbered(n++));
      pacer.pushed(count * FRAME_BYTES);
    };
    // A real-time source relayed as it comes: a frame at 10, 30, 50 ... and a tick at 20, 40, 60 ...
    for (let t = 1; t <= 10; t++) {
      call.now = t * 20 - 10;
      arrive(1);
      call.now = t * 20;
      pacer.tick();
    }
    expect(sent).toHaveLength(10);
    // The event loop is busy for 140 ms: the seven frames that came meanwhile wait in the socket. Node
    // runs the late timer first (nothing is queued yet), then the reads; every frame goes at once
    // (as many as the phone's jitter buffer holds, PHONE_BUFFER_FRAMES, at most).
    call.now = 350;
    pacer.tick();
    arrive(7);
    expect(sent).toHaveLength(17);
    // And the source is relayed as it comes again: nothing queued, nothing lost.
    for (let t = 18; t <= 40; t++) {
      call.now = t * 20 + 5;
      arrive(1);
      expect(sent).toHaveLength(n);
      pacer.tick();
    }
    expect(buffer.pendingBytes()).toBe(0);
    expect(sent).toEqual(Array.from({ length: n }, (_, i) => i));
  });

  it('keeps the tokens of a stall only for the frames that came during it: a sentence sent a frame later still plays in real time', () => {
    const call = new TimedCall();
    const { sent, buffer, pacer } = call;
    for (let t = 1; t <= 10; t++) {
      call.now = t * 20;
      pacer.tick();
    }
    call.now = 410;
    pacer.tick();
    call.now = 430;
    pacer.tick();
    for (let k = 0; k < 100; k++) buffer.source('tts').push(numbered(k));
    pacer.pushed(100 * FRAME_BYTES);
    expect(sent.length).toBeLessThanOrEqual(BURST_FRAMES);
  });

  it(`never sends the phone more than its jitter buffer holds at once (${PHONE_BUFFER_FRAMES}): a sentence read right after a long stall loses nothing there`, () => {
    const call = new TimedCall();
    const { sent, buffer, pacer } = call;
    for (let t = 1; t <= 10; t++) {
      call.now = t * 20;
      pacer.tick();
    }
    // The event loop is busy for 400 ms; a whole sentence came in meanwhile and is read right after the late tick.
    call.now = 610;
    pacer.tick();
    for (let k = 0; k < 100; k++) buffer.source('tts').push(numbered(k));
    pacer.pushed(100 * FRAME_BYTES);
    // The phone keeps the newest PHONE_BUFFER_FRAMES of what comes at once: more would lose the sentence's start.
    expect(sent.length).toBeLessThanOrEqual(PHONE_BUFFER_FRAMES);
    for (let t = 31; t <= 150; t++) {
      call.now = t * 20;
      const before = sent.length;
      pacer.tick();
      expect(sent.length - before).toBeLessThanOrEqual(1);
    }
    expect(sent).toEqual(Array.from({ length: 100 }, (_, i) => i));
  });

  it(`sends a backlog that came due during a long stall ${PHONE_BUFFER_FRAMES} frames at once at most, then one per tick: nothing of it is lost at the phone`, () => {
    const call = new TimedCall();
    const { sent, buffer, pacer } = call;
    for (let n = 0; n < 60; n++) buffer.source('tts').push(numbered(n));
    pacer.pushed(60 * FRAME_BYTES);
    for (let t = 1; t <= 10; t++) {
      call.now = t * 20;
      pacer.tick();
    }
    expect(sent).toHaveLength(10);
    // 400 ms without a tick: the late tick and the overdue ones right after it.
    call.now = 610;
    for (let t = 0; t < 20; t++) pacer.tick();
    expect(sent.length - 10).toBeLessThanOrEqual(PHONE_BUFFER_FRAMES);
    for (let t = 31; t <= 100; t++) {
      call.now = t * 20;
      const before = sent.length;
      pacer.tick();
      expect(sent.length - before).toBeLessThanOrEqual(1);
    }
    expect(sent).toEqual(Array.from({ length: 60 }, (_, i) => i));
  });

  it('keeps audio shorter than a frame until its source has stopped, then pads it with silence at a tick (continuity.test.ts has the rule)', () => {
    const call = new TimedCall();
    const frames: Buffer[] = [];
    const buffer = new PlayoutBuffer(undefined, () => call.now);
    const pacer = new PlayoutPacer(buffer, (frame) => frames.push(frame), () => call.now);
    buffer.source('a').push(Buffer.alloc(100, 7));
    pacer.pushed(100);
    expect(frames).toHaveLength(0);
    // 100 bytes are 3.125 ms of audio: the source is late once that and the slack have passed.
    const due = Math.ceil((100 / 32 + HOLD_SLACK_MS) / 20) * 20;
    for (let t = 20; t < due; t += 20) {
      call.now = t;
      pacer.tick();
    }
    expect(frames).toHaveLength(0);
    call.now = due;
    pacer.tick();
    expect(frames).toHaveLength(1);
    expect(frames[0]!.subarray(0, 100).every((b) => b === 7)).toBe(true);
    expect(frames[0]!.subarray(100).every((b) => b === 0)).toBe(true);
  });

  it(`absorbs a lateness of up to ${BURST_FRAMES - 1} ticks: the late frames go as they come and nothing queues`, () => {
    const { waited, queued, sent } = drive(200, (t) => (t === 50 || t === 51 ? 0 : t === 52 ? 3 : 1));
    expect(waited.every((w) => w === 0)).toBe(true);
    expect(queued).toBe(0);
    expect(inOrder(sent)).toBe(true);
  });
});

describe('catch-up after a longer lateness', () => {
  it('gives back, when a late source comes back, the tokens its silence lost: the late frames go at once, nothing queues', () => {
    // 120 ms without audio, then the six late frames and the one due now.
    const { waited, perInterval, queued, sent } = drive(300, (t) => (t >= 50 && t < 56 ? 0 : t === 56 ? 7 : 1));
    // All seven go in the interval they came in: the burst at once, the rest at the tick right after.
    expect(perInterval[56]).toBe(7);
    expect(Math.max(...waited)).toBeLessThanOrEqual(0.5);
    // And the source is relayed as it comes from then on.
    expect(waited.slice(-200).every((w) => w === 0)).toBe(true);
    expect(queued).toBe(0);
    expect(sent).toHaveLength(300);
    expect(inOrder(sent)).toBe(true);
  });

  it(`gives back at most ${MAX_OWED_FRAMES} frames of a long stall at once, then a token a second until the source is relayed as it comes`, () => {
    // 300 ms without audio, then the 15 late frames and the one due now.
    const { perInterval, waited, queued, sent } = drive(800, (t) => (t >= 50 && t < 65 ? 0 : t === 65 ? 16 : 1));
    // The bucket's burst, the tick's own token and what is given back.
    expect(perInterval[65]).toBe(BURST_FRAMES + 1 + MAX_OWED_FRAMES);
    // The rest of the backlog a frame a second (rule 3), never two in a row.
    const later = perInterval.map((n, t) => (n === 2 && t > 65 ? t : -1)).filter((t) => t >= 0);
    expect(later).toHaveLength(16 - BURST_FRAMES - 1 - MAX_OWED_FRAMES);
    later.slice(1).forEach((t, i) => expect(t - later[i]!).toBeGreaterThanOrEqual(EVIDENCE_TICKS));
    expect(waited.slice(-50).every((w) => w === 0)).toBe(true);
    expect(queued).toBe(0);
    expect(inOrder(sent)).toBe(true);
  });

  it('brings a real-time source whose first frames came in a burst back to being relayed as its frames come', () => {
    const { waited, perInterval, sent } = drive(600, (t) => (t === 0 ? 4 : 1));
    // The burst spent the tokens: for a while every frame waits for its tick ...
    expect(waited.slice(10, 40).every((w) => w > 0)).toBe(true);
    // ... then a token a second, never two frames in one tick but for those.
    expect(perInterval.slice(1).every((n) => n <= 2)).toBe(true);
    expect(waited.slice(-100).every((w) => w === 0)).toBe(true);
    expect(inOrder(sent)).toBe(true);
  });

  it('never hurries a faster-than-real-time source: after a pause a sentence sent at once plays at one frame per tick', () => {
    // Real-time speech, more than a second of silence, then a 3 s sentence at once.
    const longPause = drive(400, (t) => (t < 40 ? 1 : t === 40 + PAUSE_TICKS + 10 ? 150 : 0));
    const start = 40 + PAUSE_TICKS + 10;
    expect(longPause.perInterval[start]).toBe(BURST_FRAMES + 1);
    expect(longPause.perInterval.slice(start + 1, start + 150 - BURST_FRAMES).every((n) => n === 1)).toBe(true);
    expect(longPause.perInterval.slice(start + 150 - BURST_FRAMES).every((n) => n === 0)).toBe(true);
    // 200 ms of silence, then more than those 200 ms held, at once: an answer sent ahead, not lateness.
    const shortPause = drive(400, (t) => (t < 40 ? 1 : t < 50 ? 0 : t === 50 ? 150 : 0));
    expect(shortPause.perInterval.slice(51, 50 + 150 - BURST_FRAMES).every((n) => n === 1)).toBe(true);
    expect(inOrder(shortPause.sent)).toBe(true);
  });

  it('forgets what a silence lost on clear', () => {
    // A stall; a clear comes just before the late frames: nothing is given back for it.
    const { perInterval } = drive(300, (t) => (t >= 50 && t < 56 ? 0 : t === 56 ? 7 : 1), (buffer, pacer) => {
      const rt = buffer.source('rt');
      const push = rt.push.bind(rt);
      let pushes = 0;
      rt.push = (pcm) => {
        if (++pushes === 51) {
          rt.clear();
          pacer.cleared();
        }
        push(pcm);
      };
    });
    expect(perInterval[56]).toBe(BURST_FRAMES + 1);
  });

  it('fires marks exactly: as the frame holding the audio before them is built, extra frames included', () => {
    const log: string[] = [];
    const buffer = new PlayoutBuffer((_source, name) => log.push(name));
    const pacer = new PlayoutPacer(buffer, (frame) => log.push(`frame-${numberOf(frame)}`));
    let next = 0;
    for (let t = 0; t < 300; t++) {
      const arriving = t >= 50 && t < 56 ? 0 : t === 56 ? 7 : 1;
      for (let k = 0; k < arriving; k++) {
        buffer.source('rt').push(numbered(next));
        pacer.pushed(FRAME_BYTES);
        buffer.source('rt').mark(`mark-${next}`);
        next++;
      }
      pacer.tick();
    }
    // Each mark fires once, in order: right after its frame when that went out at once, or while
    // the frame after it is built when it was queued behind audio.
    const marks = log.filter((e) => e.startsWith('mark-'));
    const frames = log.filter((e) => e.startsWith('frame-'));
    expect(frames).toEqual(Array.from({ length: next }, (_, n) => `frame-${n}`));
    expect(marks).toEqual(Array.from({ length: next }, (_, n) => `mark-${n}`));
    for (let n = 0; n < next; n++) expect(log.indexOf(`mark-${n}`)).toBeGreaterThan(log.indexOf(`frame-${n}`) - 2);
  });
});
