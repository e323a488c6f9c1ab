import { describe, expect, it } from 'vitest';
import { FRAME_BYTES, FRAME_MS } from './constants.js';
import { HOLD_SLACK_MS } from './continuity.js';
import { BURST_FRAMES, PlayoutPacer } from './pacer.js';
import { PlayoutBuffer } from './playout.js';

/** Bytes per ms of 16 kHz s16le. */
const BYTES_PER_MS = 32;

/** Speech of `samples` samples that never holds a zero sample: a zero at the phone is inserted silence. */
function speech(samples: number, first = 0): Buffer {
  const pcm = Buffer.alloc(samples * 2);
  for (let i = 0; i < samples; i++) pcm.writeInt16LE((((first + i) * 37) % 30000) + 1, i * 2);
  return pcm;
}

function lcg(seed: number): () => number {
  let x = seed;
  return () => {
    x = (x * 1103515245 + 12345) % 2147483648;
    return x / 2147483648;
  };
}

interface Event {
  at: number;
  run: () => void;
}

/**
 * One call on a clock the test drives (ms): its frame clock ticks every 20 ms (at 20, 40, ...), and
 * the events run at their times, before a tick due at the same time. Records each frame sent and when.
 */
class Call {
  now = 0;
  readonly frames: Buffer[] = [];
  readonly sentAt: number[] = [];
  readonly marks: string[] = [];
  readonly buffer = new PlayoutBuffer((_source, name, cleared) => this.marks.push(cleared ? `${name} cleared` : `${name} @${this.frames.length}`), () => this.now);
  readonly pacer = new PlayoutPacer(this.buffer, (frame) => this.sent(frame), () => this.now);
  private readonly events: Event[] = [];
  private nextTick = FRAME_MS;
  /** A hook per frame sent, for tests that act on what was sent. */
  onFrame: (frame: Buffer) => void = () => {};

  push(pcm: Buffer, source = 'agent'): void {
    this.buffer.source(source).push(pcm);
    this.pacer.pushed(pcm.length);
  }

  at(at: number, run: () => void): void {
    this.events.push({ at, run });
    this.events.sort((a, b) => a.at - b.at);
  }

  /** Runs ticks and events up to `until` (ms); a tick whose time comes at `skipTicks` is late (the event loop was busy). */
  runTo(until: number, stall?: { from: number; to: number }): void {
    for (;;) {
      const event = this.events[0];
      let tickAt = this.nextTick;
      if (stall && tickAt > stall.from && tickAt < stall.to) tickAt = stall.to;
      if (event && event.at <= tickAt && event.at <= until) {
        this.events.shift();
        this.now = Math.max(this.now, event.at);
        event.run();
        continue;
      }
      if (tickAt > until) return;
      this.now = tickAt;
      this.nextTick += FRAME_MS;
      this.pacer.tick();
    }
  }

  /** Everything the phone received, as one stream of samples. */
  received(): Buffer {
    return Buffer.concat(this.frames);
  }

  private sent(frame: Buffer): void {
    this.frames.push(frame);
    this.sentAt.push(this.now);
    this.onFrame(frame);
  }
}

/** Zero samples in `pcm`, and where the runs of them start (in samples). */
function zeroRuns(pcm: Buffer): { zeros: number; runs: number[] } {
  let zeros = 0;
  const runs: number[] = [];
  for (let i = 0; i < pcm.length / 2; i++) {
    if (pcm.readInt16LE(i * 2) !== 0) continue;
    if (i === 0 || pcm.readInt16LE(i * 2 - 2) !== 0) runs.push(i);
    zeros += 1;
  }
  return { zeros, runs };
}

/** The stream without its trailing zeros: the padding of the last frame, after the source stopped. */
function trimEnd(pcm: Buffer): Buffer {
  let end = pcm.length;
  while (end >= 2 && pcm.readInt16LE(end - 2) === 0) end -= 2;
  return pcm.subarray(0, end);
}

/** A source sending `total` bytes of speech in real time in chunks of `chunkBytes`, each up to ±`jitterMs` off its time. */
function streamInRealTime(call: Call, opts: { chunkBytes: number; totalMs: number; jitterMs: number; seed: number; startAt?: number; marks?: boolean }): Buffer {
  const pcm = speech((opts.totalMs * BYTES_PER_MS) / 2);
  const random = lcg(opts.seed);
  const startAt = opts.startAt ?? 5;
  let k = 0;
  for (let at = 0; at < pcm.length; at += opts.chunkBytes, k++) {
    const chunk = pcm.subarray(at, Math.min(pcm.length, at + opts.chunkBytes));
    const when = startAt + at / BYTES_PER_MS + (random() * 2 - 1) * opts.jitterMs;
    const name = `chunk-${k}`;
    call.at(Math.max(0, when), () => {
      call.push(chunk);
      if (opts.marks) call.buffer.source('agent').mark(name);
    });
  }
  return pcm;
}

// The chunk rhythms real agents use: Pipecat's Twilio serializer (758 bytes of mu-law, 94.75 ms),
// the ElevenLabs Twilio sample (250 ms), PCM of an odd size (1001 bytes), 37 ms, and whole frames.
const RHYTHMS = [
  { name: '758 bytes of mu-law (94.75 ms)', chunkBytes: 758 * 4 },
  { name: '250 ms', chunkBytes: 250 * BYTES_PER_MS },
  { name: '1001 bytes of PCM', chunkBytes: 1001 },
  { name: '37 ms', chunkBytes: 37 * BYTES_PER_MS },
  { name: 'whole frames', chunkBytes: FRAME_BYTES },
];

describe('contiguous play-out of a source streaming in real time', () => {
  for (const rhythm of RHYTHMS) {
    it(`plays every sample in order with no silence inserted: chunks of ${rhythm.name}, ±10 ms of timer jitter`, () => {
      for (const seed of [1, 2, 3]) {
        const call = new Call();
        const pcm = streamInRealTime(call, { chunkBytes: rhythm.chunkBytes, totalMs: 3000, jitterMs: 10, seed });
        call.runTo(4000);
        const got = call.received();
        expect(trimEnd(got).equals(pcm), `seed ${seed}`).toBe(true);
        expect(zeroRuns(trimEnd(got)).zeros).toBe(0);
        // Only the last frame is padded, and it went out once the source had stopped.
        expect(got.length - pcm.length).toBeLessThan(FRAME_BYTES);
      }
    });
  }

  it('adds no latency to a source sending whole frames: each frame goes the moment it comes', () => {
    const call = new Call();
    const pushedAt: number[] = [];
    const random = lcg(9);
    // The clock has run a while: the bucket is full.
    call.runTo(100);
    for (let n = 0; n < 100; n++) {
      const at = 105 + n * FRAME_MS + (random() * 2 - 1) * 5;
      call.at(at, () => {
        pushedAt.push(call.now);
        call.push(speech(320, n * 320));
      });
    }
    call.runTo(2500);
    expect(call.sentAt).toEqual(pushedAt);
  });

  it('pads the last partial frame once the source has stopped: no later than its rhythm and the slack allow', () => {
    const call = new Call();
    const chunk = 758 * 4;
    const pcm = speech((10 * chunk) / 2);
    for (let k = 0; k < 10; k++) call.at(5 + k * 94.75, () => call.push(pcm.subarray(k * chunk, (k + 1) * chunk)));
    const lastPush = 5 + 9 * 94.75;
    call.runTo(2000);
    const paddedAt = call.sentAt.at(-1)!;
    expect(paddedAt).toBeGreaterThan(lastPush + 94.75);
    expect(paddedAt).toBeLessThanOrEqual(lastPush + 94.75 + HOLD_SLACK_MS + FRAME_MS);
    expect(trimEnd(call.received()).equals(pcm)).toBe(true);
  });

  it('after a real pause pads what was left, and plays the next chunk at once', () => {
    const call = new Call();
    const chunk = 250 * BYTES_PER_MS;
    const first = speech((2 * chunk + 300) / 2);
    const second = speech((chunk + 300) / 2, 50_000);
    call.at(5, () => call.push(first.subarray(0, chunk)));
    call.at(255, () => call.push(first.subarray(chunk)));
    // A second of pause, then the next answer.
    let resumedAt = 0;
    call.at(1600, () => {
      resumedAt = call.now;
      call.push(second);
    });
    call.runTo(3000);
    const firstOfSecond = call.frames.findIndex((f) => f.readInt16LE(0) === second.readInt16LE(0));
    expect(firstOfSecond).toBeGreaterThan(0);
    // Its first frame went with the push, not at a tick.
    expect(call.sentAt[firstOfSecond]).toBe(resumedAt);
    // Silence only where the source paused: the padding of the frame before it.
    const got = call.received();
    const { runs } = zeroRuns(trimEnd(got));
    expect(runs).toEqual([first.length / 2]);
    expect(Buffer.concat([trimEnd(Buffer.concat(call.frames.slice(0, firstOfSecond))), trimEnd(Buffer.concat(call.frames.slice(firstOfSecond)))]).equals(Buffer.concat([first, second]))).toBe(true);
  });

  it('joins a chunk that comes after a pause shorter than the rhythm explains to what was left: no silence inserted', () => {
    const call = new Call();
    const chunk = 250 * BYTES_PER_MS;
    const pcm = speech((3 * chunk + 300) / 2);
    call.at(5, () => call.push(pcm.subarray(0, chunk + 300)));
    // 250 ms of audio, then the next chunk 40 ms late (within the slack).
    call.at(295, () => call.push(pcm.subarray(chunk + 300, 2 * chunk + 300)));
    call.at(545, () => call.push(pcm.subarray(2 * chunk + 300)));
    call.runTo(2000);
    expect(trimEnd(call.received()).equals(pcm)).toBe(true);
  });

  it("does not pad at the late tick after the gateway's own stall: the chunk read right after it joins what was left", () => {
    const call = new Call();
    const chunk = 37 * BYTES_PER_MS;
    const pcm = speech((20 * chunk) / 2);
    for (let k = 0; k < 20; k++) call.at(5 + k * 37, () => call.push(pcm.subarray(k * chunk, (k + 1) * chunk)));
    // The event loop is busy from 300 ms to 420 ms: the tick due meanwhile runs at 420, before the chunks that came meanwhile are read (at 420 too).
    call.at(420, () => {});
    call.runTo(2000, { from: 300, to: 420 });
    expect(trimEnd(call.received()).equals(pcm)).toBe(true);
  });

  it('mixes a source whose partial frame waits with others without padding it: it sits out and keeps its samples contiguous', () => {
    const call = new Call();
    const chunk = 758 * 4;
    const agent = speech((8 * chunk) / 2);
    for (let k = 0; k < 8; k++) call.at(5 + k * 94.75, () => call.push(agent.subarray(k * chunk, (k + 1) * chunk)));
    // A tone of whole frames from a second source during the same time (value 0 so the mix is the agent's alone).
    for (let n = 0; n < 40; n++) call.at(7 + n * FRAME_MS, () => call.push(Buffer.alloc(FRAME_BYTES), 'tone'));
    call.runTo(2000);
    const got = call.received();
    const nonZero: number[] = [];
    for (let i = 0; i < got.length / 2; i++) if (got.readInt16LE(i * 2) !== 0) nonZero.push(got.readInt16LE(i * 2));
    const want: number[] = [];
    for (let i = 0; i < agent.length / 2; i++) want.push(agent.readInt16LE(i * 2));
    expect(nonZero).toEqual(want);
    // Within the agent's speech, zeros come only from frames it sat out, never in the middle of its frames.
    for (const frame of call.frames) {
      const runs = zeroRuns(frame);
      if (runs.zeros === 0 || runs.zeros === FRAME_BYTES / 2) continue;
      // A frame of the agent's last partial frame, padded: zeros only at its end.
      expect(runs.runs).toHaveLength(1);
      expect(frame.readInt16LE(FRAME_BYTES - 2)).toBe(0);
    }
  });
});

describe('marks and clear on a partial frame', () => {
  it('fires a mark behind a waiting partial frame only once that frame has played', () => {
    const call = new Call();
    const pcm = speech(1000);
    call.at(5, () => {
      call.push(pcm);
      call.buffer.source('agent').mark('end');
    });
    call.runTo(2000);
    // 1000 samples: three whole frames and a partial one; the mark fires as the fourth is built.
    expect(call.frames).toHaveLength(4);
    expect(call.marks).toEqual(['end @3']);
    expect(trimEnd(call.received()).equals(pcm)).toBe(true);
  });

  it("pads at once at a mark once the source's marks have ended its speech; never for a source that marks every chunk", () => {
    const endMarker = new Call();
    const chunk = 37 * BYTES_PER_MS;
    const answer = (call: Call, at: number, first: number) => {
      for (let k = 0; k < 5; k++) call.at(at + k * 37, () => call.push(speech(chunk / 2, first + (k * chunk) / 2)));
      call.at(at + 4 * 37, () => call.buffer.source('agent').mark(`end-${first}`));
    };
    answer(endMarker, 5, 0);
    answer(endMarker, 1005, 100_000);
    endMarker.runTo(3000);
    // First answer: the mark waits the rhythm out. Second: the mark behind the partial frame pads it at the next tick.
    const lastOfSecond = endMarker.sentAt.at(-1)!;
    expect(lastOfSecond).toBeLessThanOrEqual(1005 + 4 * 37 + 37 + FRAME_MS);
    expect(endMarker.marks.map((m) => m.split(' ')[0])).toEqual(['end-0', 'end-100000']);

    const everyChunk = new Call();
    const pcm = streamInRealTime(everyChunk, { chunkBytes: 758 * 4, totalMs: 2000, jitterMs: 10, seed: 4, marks: true });
    everyChunk.runTo(3000);
    expect(trimEnd(everyChunk.received()).equals(pcm)).toBe(true);
    expect(everyChunk.marks.map((m) => m.split(' ')[0])).toEqual(Array.from({ length: everyChunk.marks.length }, (_, k) => `chunk-${k}`));
    expect(everyChunk.marks).toHaveLength(Math.ceil(pcm.length / (758 * 4)));
  });

  it('clear drops a waiting partial frame and tells its marks back as cleared', () => {
    const call = new Call();
    call.at(5, () => {
      call.push(speech(1000));
      call.buffer.source('agent').mark('m');
    });
    call.at(70, () => {
      call.buffer.source('agent').clear();
      call.pacer.cleared();
    });
    call.runTo(500);
    expect(call.frames).toHaveLength(3);
    expect(call.marks).toEqual(['m cleared']);
    expect(call.buffer.pendingBytes()).toBe(0);
  });

  it(`still sends a burst of at most ${BURST_FRAMES} frames for a sentence sent ahead, and its partial end as soon as it is reached`, () => {
    const call = new Call();
    call.runTo(100);
    // A second of speech synthesized at five times real time, in 50 ms pieces: the last comes 200 ms after the first.
    const pcm = speech(16_000 + 100);
    const piece = 50 * BYTES_PER_MS;
    for (let at = 0, k = 0; at < pcm.length; at += piece, k++) call.at(105 + k * 10, () => call.push(pcm.subarray(at, at + piece)));
    call.runTo(3000);
    expect(call.sentAt.filter((t) => t < 120)).toHaveLength(BURST_FRAMES);
    // The 51st frame (100 samples) goes at the tick after the 50th: the source stopped long before.
    expect(call.frames).toHaveLength(51);
    expect(call.sentAt[50]! - call.sentAt[49]!).toBe(FRAME_MS);
    expect(trimEnd(call.received()).equals(pcm)).toBe(true);
  });

  it('holds the partial end of a long chunk sent at once no longer than its own duration and the slack', () => {
    const call = new Call();
    call.runTo(100);
    const pcm = speech(16_000 + 100);
    call.at(105, () => call.push(pcm));
    call.runTo(3000);
    expect(call.frames).toHaveLength(51);
    expect(call.sentAt[50]!).toBeLessThanOrEqual(105 + 1000 + HOLD_SLACK_MS + FRAME_MS);
    expect(trimEnd(call.received()).equals(pcm)).toBe(true);
  });
});
