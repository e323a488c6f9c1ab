import { describe, it, expect } from 'vitest';
import { FRAME_BYTES } from './constants.js';
import { PlayoutBuffer } from './playout.js';

function filled(samples: number, value: number): Buffer {
  const b = Buffer.alloc(samples * 2);
  for (let i = 0; i < samples; i++) b.writeInt16LE(value, i * 2);
  return b;
}

function ramp(bytes: number, seed = 0): Buffer {
  return Buffer.from(Array.from({ length: bytes }, (_, i) => (i * 31 + seed) & 0xff));
}

function withMarks(): { buffer: PlayoutBuffer; fired: string[] } {
  const fired: string[] = [];
  const buffer = new PlayoutBuffer((source, name) => fired.push(`${source}:${name}`));
  return { buffer, fired };
}

/** Deterministic pseudo-random integers in [0, n). */
function lcg(seed: number): (n: number) => number {
  let x = seed;
  return (n) => {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    return x % n;
  };
}

describe('PlayoutBuffer frames', () => {
  it('returns null when no source has audio', () => {
    const buffer = new PlayoutBuffer();
    expect(buffer.nextFrame()).toBeNull();
    expect(buffer.isIdle()).toBe(true);
    buffer.source('agent').push(Buffer.alloc(0));
    expect(buffer.nextFrame()).toBeNull();
  });

  it('plays a source frame by frame and pads its tail with silence', () => {
    const buffer = new PlayoutBuffer();
    const audio = ramp(1000);
    buffer.source('agent').push(audio);
    expect(buffer.source('agent').pendingBytes()).toBe(1000);

    const first = buffer.nextFrame();
    expect(first?.equals(audio.subarray(0, FRAME_BYTES))).toBe(true);
    expect(buffer.pendingBytes()).toBe(360);

    const second = buffer.nextFrame();
    expect(second?.length).toBe(FRAME_BYTES);
    expect(second?.subarray(0, 360).equals(audio.subarray(FRAME_BYTES))).toBe(true);
    expect(second?.subarray(360).every((b) => b === 0)).toBe(true);

    expect(buffer.nextFrame()).toBeNull();
    expect(buffer.isIdle()).toBe(true);
  });

  it('returns a new buffer each time', () => {
    const buffer = new PlayoutBuffer();
    buffer.source('a').push(filled(640, 5));
    const first = buffer.nextFrame();
    const second = buffer.nextFrame();
    expect(first).not.toBe(second);
    expect(first?.readInt16LE(0)).toBe(5);
  });

  it('mixes sources by summing, with saturation', () => {
    const buffer = new PlayoutBuffer();
    buffer.source('a').push(Buffer.concat([filled(100, 30_000), filled(100, -30_000), filled(100, 1000)]));
    buffer.source('b').push(Buffer.concat([filled(100, 30_000), filled(100, -30_000), filled(50, -3000)]));
    const frame = buffer.nextFrame()!;
    expect(frame.readInt16LE(0)).toBe(32767);
    expect(frame.readInt16LE(198)).toBe(32767);
    expect(frame.readInt16LE(200)).toBe(-32768);
    expect(frame.readInt16LE(400)).toBe(-2000);
    expect(frame.readInt16LE(500)).toBe(1000);
    expect(frame.readInt16LE(600)).toBe(0);
  });

  it('keeps a partial sample until its second byte arrives', () => {
    const buffer = new PlayoutBuffer();
    const audio = ramp(FRAME_BYTES);
    buffer.source('agent').push(audio.subarray(0, 3));
    expect(buffer.source('agent').pendingBytes()).toBe(2);
    buffer.source('agent').push(audio.subarray(3, 4));
    buffer.source('agent').push(audio.subarray(4, 5));
    buffer.source('agent').push(audio.subarray(5));
    expect(buffer.source('agent').pendingBytes()).toBe(FRAME_BYTES);
    expect(buffer.nextFrame()?.equals(audio)).toBe(true);
  });

  it('plays many pushes of random lengths as their concatenation', () => {
    const buffer = new PlayoutBuffer();
    const random = lcg(7);
    const pushed: Buffer[] = [];
    const played: Buffer[] = [];
    for (let i = 0; i < 2000; i++) {
      const chunk = ramp(random(1500), i);
      pushed.push(chunk);
      buffer.source('agent').push(chunk);
      // Pull only whole frames, so no padding is inserted in the middle.
      while (buffer.source('agent').pendingBytes() >= FRAME_BYTES) played.push(buffer.nextFrame()!);
    }
    const input = Buffer.concat(pushed);
    const whole = input.length - (input.length % FRAME_BYTES);
    expect(Buffer.concat(played).equals(input.subarray(0, whole))).toBe(true);
  });

  it('drains everything pushed at once, growing past the initial capacity', () => {
    const buffer = new PlayoutBuffer();
    const random = lcg(11);
    const pushed: Buffer[] = [];
    for (let i = 0; i < 300; i++) {
      const chunk = ramp(random(2000), i);
      pushed.push(chunk);
      buffer.source('agent').push(chunk);
    }
    const input = Buffer.concat(pushed);
    const played: Buffer[] = [];
    for (let f = buffer.nextFrame(); f; f = buffer.nextFrame()) played.push(f);
    const even = input.length & ~1;
    const padded = Buffer.alloc(Math.ceil(even / FRAME_BYTES) * FRAME_BYTES);
    input.copy(padded, 0, 0, even);
    expect(Buffer.concat(played).equals(padded)).toBe(true);
  });

  it('keeps sources independent', () => {
    const buffer = new PlayoutBuffer();
    buffer.source('a').push(filled(640, 100));
    buffer.source('b').push(filled(320, 7));
    expect(buffer.source('a').pendingBytes()).toBe(1280);
    expect(buffer.source('b').pendingBytes()).toBe(640);
    expect(buffer.pendingBytes()).toBe(1920);

    expect(buffer.nextFrame()?.readInt16LE(0)).toBe(107);
    buffer.source('a').clear();
    expect(buffer.source('a').pendingBytes()).toBe(0);
    expect(buffer.nextFrame()).toBeNull();

    buffer.source('b').push(filled(320, 9));
    buffer.source('a').push(filled(320, 1));
    expect(buffer.nextFrame()?.readInt16LE(0)).toBe(10);
  });
});

describe('PlayoutBuffer marks', () => {
  it('fires a mark once the audio before it has played, after the frame is built', () => {
    const { buffer, fired } = withMarks();
    buffer.source('agent').push(ramp(1000));
    buffer.source('agent').mark('m1');
    buffer.source('agent').push(ramp(640));
    buffer.source('agent').mark('m2');
    expect(fired).toEqual([]);
    buffer.nextFrame();
    expect(fired).toEqual([]);
    buffer.nextFrame();
    expect(fired).toEqual(['agent:m1']);
    expect(buffer.source('agent').pendingBytes()).toBe(360);
    buffer.nextFrame();
    expect(fired).toEqual(['agent:m1', 'agent:m2']);
  });

  it('fires a mark at once, synchronously, when its source has nothing pending', () => {
    const { buffer, fired } = withMarks();
    buffer.source('never-pushed').mark('a');
    expect(fired).toEqual(['never-pushed:a']);
    buffer.source('agent').push(ramp(640));
    buffer.nextFrame();
    buffer.source('agent').mark('b');
    expect(fired).toEqual(['never-pushed:a', 'agent:b']);
  });

  it('fires marks in order, including several at the same position', () => {
    const { buffer, fired } = withMarks();
    buffer.source('agent').push(ramp(100));
    buffer.source('agent').mark('1');
    buffer.source('agent').mark('2');
    buffer.source('agent').push(ramp(100));
    buffer.source('agent').mark('3');
    buffer.nextFrame();
    expect(fired).toEqual(['agent:1', 'agent:2', 'agent:3']);
  });

  it('does not wait for a partial sample', () => {
    const { buffer, fired } = withMarks();
    buffer.source('agent').push(ramp(641));
    buffer.source('agent').mark('m');
    buffer.nextFrame();
    expect(fired).toEqual(['agent:m']);
  });

  it('waits only for its own source', () => {
    const { buffer, fired } = withMarks();
    buffer.source('a').push(ramp(640 * 3));
    buffer.source('b').push(ramp(10));
    buffer.source('b').mark('mb');
    buffer.source('a').mark('ma');
    buffer.nextFrame();
    expect(fired).toEqual(['b:mb']);
    buffer.nextFrame();
    buffer.nextFrame();
    expect(fired).toEqual(['b:mb', 'a:ma']);
  });

  it('clear drops unplayed audio and echoes pending marks at once', () => {
    const { buffer, fired } = withMarks();
    buffer.source('agent').push(ramp(2000));
    buffer.source('agent').mark('x');
    buffer.source('agent').push(ramp(2001));
    buffer.source('agent').mark('y');
    buffer.source('other').push(filled(640, 3));
    buffer.source('other').mark('z');
    buffer.nextFrame();
    buffer.source('agent').clear();
    expect(fired).toEqual(['agent:x', 'agent:y']);
    expect(buffer.source('agent').pendingBytes()).toBe(0);
    expect(buffer.nextFrame()?.readInt16LE(0)).toBe(3);
    expect(fired).toEqual(['agent:x', 'agent:y', 'other:z']);
    expect(buffer.nextFrame()).toBeNull();

    // The dropped odd byte does not pair with the next push.
    buffer.source('agent').push(filled(320, 42));
    expect(buffer.nextFrame()?.readInt16LE(0)).toBe(42);
  });

  it('removeSource echoes pending marks and forgets the source', () => {
    const { buffer, fired } = withMarks();
    buffer.source('agent').push(ramp(700));
    buffer.source('agent').mark('m');
    buffer.source('agent').remove();
    expect(fired).toEqual(['agent:m']);
    expect(buffer.isIdle()).toBe(true);
    buffer.source('agent').remove();
    buffer.source('unknown').clear();
    expect(fired).toEqual(['agent:m']);
  });

  it('lets a mark listener push more audio', () => {
    const fired: string[] = [];
    const buffer: PlayoutBuffer = new PlayoutBuffer((source, name) => {
      fired.push(name);
      if (name === 'first') buffer.source(source).push(filled(320, 8));
    });
    buffer.source('agent').push(filled(320, 1));
    buffer.source('agent').mark('first');
    expect(buffer.nextFrame()?.readInt16LE(0)).toBe(1);
    expect(buffer.nextFrame()?.readInt16LE(0)).toBe(8);
    expect(fired).toEqual(['first']);
  });
});

describe('PlayoutBuffer totals', () => {
  it('keeps its queued total equal to what its sources hold, through pushes of any length, frames, clears and removals', () => {
    const next = lcg(7);
    const buffer = new PlayoutBuffer();
    const ids = ['a', 'b', 'c'];
    for (let step = 0; step < 2000; step++) {
      const id = ids[next(ids.length)]!;
      const op = next(10);
      if (op < 5) buffer.source(id).push(ramp(1 + next(1500), step));
      else if (op < 8) buffer.nextFrame();
      else if (op < 9) buffer.source(id).clear();
      else buffer.source(id).remove();
      const held = ids.reduce((sum, s) => sum + buffer.source(s).pendingBytes(), 0);
      expect(buffer.pendingBytes()).toBe(held);
      expect(buffer.isIdle()).toBe(held === 0);
      // Asked at -Infinity no partial frame may be padded: a frame is ready when some source holds a whole one.
      expect(buffer.frameReady(-Infinity)).toBe(ids.some((s) => buffer.source(s).pendingBytes() >= FRAME_BYTES));
      expect(buffer.frameReady()).toBe(held > 0);
    }
  });
});
