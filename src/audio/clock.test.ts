import { describe, it, expect } from 'vitest';
import { FrameClock } from './clock.js';

/** A manual time source and timer queue; every timer fires `lateness` ms late (or early), after 1 ms at least. */
class FakeTime {
  time = 0;
  private nextId = 0;
  readonly timers = new Map<number, { at: number; fn: () => void }>();

  constructor(private readonly lateness = 0) {}

  readonly options = {
    now: () => this.time,
    setTimer: (fn: () => void, ms: number) => {
      this.timers.set(++this.nextId, { at: this.time + Math.max(1, ms + this.lateness), fn });
      return this.nextId;
    },
    clearTimer: (handle: unknown) => {
      this.timers.delete(handle as number);
    },
  };

  /** Lets `ms` pass, running timers as they come due. */
  advance(ms: number): void {
    const end = this.time + ms;
    for (;;) {
      let first: [number, { at: number; fn: () => void }] | undefined;
      for (const entry of this.timers) if (!first || entry[1].at < first[1].at) first = entry;
      if (!first || first[1].at > end) break;
      this.timers.delete(first[0]);
      this.time = Math.max(this.time, first[1].at);
      first[1].fn();
    }
    this.time = end;
  }

  /** Lets `ms` pass with the event loop blocked, then lets due timers run. */
  block(ms: number): void {
    this.time += ms;
    this.advance(0);
  }
}

function recorder(fake: FakeTime): { ticks: number[]; times: number[]; listener: (tick: number) => void } {
  const ticks: number[] = [];
  const times: number[] = [];
  return {
    ticks,
    times,
    listener: (tick) => {
      ticks.push(tick);
      times.push(fake.time);
    },
  };
}

describe('FrameClock with a fake time source', () => {
  it('runs only while it has listeners', () => {
    const fake = new FakeTime();
    const clock = new FrameClock(fake.options);
    expect(fake.timers.size).toBe(0);
    const rec = recorder(fake);
    const unsubscribe = clock.subscribe(rec.listener);
    expect(clock.running).toBe(true);
    fake.advance(100);
    expect(rec.ticks).toEqual([1, 2, 3, 4, 5]);
    expect(rec.times).toEqual([20, 40, 60, 80, 100]);
    unsubscribe();
    unsubscribe();
    expect(clock.running).toBe(false);
    expect(fake.timers.size).toBe(0);
    fake.advance(100);
    expect(rec.ticks).toHaveLength(5);
  });

  it('starts a new grid when restarted', () => {
    const fake = new FakeTime();
    const clock = new FrameClock(fake.options);
    clock.subscribe(() => {})();
    fake.advance(7);
    const rec = recorder(fake);
    clock.subscribe(rec.listener);
    fake.advance(40);
    expect(rec.ticks).toEqual([1, 2]);
    expect(rec.times).toEqual([27, 47]);
  });

  it('shares one grid among listeners; a late subscriber joins it', () => {
    const fake = new FakeTime();
    const clock = new FrameClock(fake.options);
    const a = recorder(fake);
    const b = recorder(fake);
    clock.subscribe(a.listener);
    fake.advance(30);
    clock.subscribe(b.listener);
    fake.advance(30);
    expect(a.ticks).toEqual([1, 2, 3]);
    expect(b.ticks).toEqual([2, 3]);
    expect(b.times).toEqual([40, 60]);
    expect(fake.timers.size).toBe(1);
  });

  it('does not accumulate the lateness of each timer', () => {
    const fake = new FakeTime(3);
    const clock = new FrameClock(fake.options);
    const rec = recorder(fake);
    clock.subscribe(rec.listener);
    fake.advance(1003);
    expect(rec.ticks).toHaveLength(50);
    expect(rec.times.every((t, i) => t === (i + 1) * 20 + 3)).toBe(true);
  });

  it('delivers up to 5 missed ticks at once after a short block', () => {
    const fake = new FakeTime();
    const clock = new FrameClock(fake.options);
    const rec = recorder(fake);
    clock.subscribe(rec.listener);
    fake.advance(20);
    fake.block(95);
    expect(rec.ticks).toEqual([1, 2, 3, 4, 5]);
    expect(rec.times).toEqual([20, 115, 115, 115, 115]);
    fake.advance(5);
    expect(rec.ticks).toEqual([1, 2, 3, 4, 5, 6]);
    expect(rec.times[5]).toBe(120);
  });

  it('delivers every tick missed in a block under a second, in bursts of 5 a millisecond apart', () => {
    const fake = new FakeTime();
    const clock = new FrameClock(fake.options);
    const rec = recorder(fake);
    clock.subscribe(rec.listener);
    fake.block(310);
    expect(rec.ticks).toEqual([1, 2, 3, 4, 5]);
    fake.advance(2);
    expect(rec.ticks).toEqual(Array.from({ length: 15 }, (_, i) => i + 1));
    expect(rec.times.slice(4, 11)).toEqual([310, 311, 311, 311, 311, 311, 312]);
    fake.advance(8);
    expect(rec.ticks.at(-1)).toBe(16);
    expect(rec.times.at(-1)).toBe(320);
  });

  it('skips the oldest ticks of a block longer than a second and keeps its grid', () => {
    const fake = new FakeTime();
    const clock = new FrameClock(fake.options);
    const rec = recorder(fake);
    clock.subscribe(rec.listener);
    fake.block(2010);
    fake.advance(9);
    expect(rec.ticks).toEqual(Array.from({ length: 50 }, (_, i) => i + 51));
    fake.advance(1);
    expect(rec.ticks.at(-1)).toBe(101);
    expect(rec.times.at(-1)).toBe(2020);
  });

  it('honours a custom catch-up cap and period', () => {
    const fake = new FakeTime();
    const clock = new FrameClock({ ...fake.options, maxCatchUp: 2, periodMs: 10 });
    const rec = recorder(fake);
    clock.subscribe(rec.listener);
    fake.block(55);
    expect(rec.ticks).toEqual([4, 5]);
  });

  it('re-arms after a timer that fires early', () => {
    const fake = new FakeTime(-5);
    const clock = new FrameClock(fake.options);
    const rec = recorder(fake);
    clock.subscribe(rec.listener);
    fake.advance(19);
    expect(rec.ticks).toEqual([]);
    fake.advance(1);
    expect(rec.ticks).toEqual([1]);
  });

  it('does not call a listener unsubscribed during the tick', () => {
    const fake = new FakeTime();
    const clock = new FrameClock(fake.options);
    const calls: string[] = [];
    clock.subscribe(() => {
      calls.push('a');
      unsubscribeB();
    });
    const unsubscribeB = clock.subscribe(() => calls.push('b'));
    fake.advance(40);
    expect(calls).toEqual(['a', 'a']);
  });

  it('stops delivering catch-up ticks once the last listener leaves', () => {
    const fake = new FakeTime();
    const clock = new FrameClock(fake.options);
    const ticks: number[] = [];
    const unsubscribe = clock.subscribe((tick) => {
      ticks.push(tick);
      if (tick === 2) unsubscribe();
    });
    fake.block(100);
    expect(ticks).toEqual([1, 2]);
    expect(fake.timers.size).toBe(0);
  });

  it('reports a throwing listener and still ticks the others', () => {
    const fake = new FakeTime();
    const errors: unknown[] = [];
    const clock = new FrameClock({ ...fake.options, onError: (err) => errors.push(err) });
    const rec = recorder(fake);
    clock.subscribe(() => {
      throw new Error('boom');
    });
    clock.subscribe(rec.listener);
    fake.advance(40);
    expect(rec.ticks).toEqual([1, 2]);
    expect(errors).toHaveLength(2);
  });
});

describe('FrameClock with real timers', () => {
  it('ticks about 50 times a second without drifting', async () => {
    const clock = new FrameClock();
    const lateness: number[] = [];
    const start = performance.now();
    const unsubscribe = clock.subscribe((tick) => lateness.push(performance.now() - (start + tick * 20)));
    await new Promise((resolve) => setTimeout(resolve, 1010));
    unsubscribe();
    expect(clock.running).toBe(false);
    expect(Math.abs(lateness.length - 50)).toBeLessThanOrEqual(2);
    // Medians: a stall of the machine makes a few ticks late (and caught up), not the clock drift.
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    const early = median(lateness.slice(0, 10));
    const late = median(lateness.slice(-10));
    expect(late).toBeGreaterThan(-1);
    expect(late).toBeLessThan(15);
    expect(late - early).toBeLessThan(8);
  });
});
