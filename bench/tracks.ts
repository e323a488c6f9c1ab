import type { Percentiles } from './protocol.js';

/** A Float64Array that grows as indices come, NaN where nothing was written. */
export class TimeArray {
  private data = new Float64Array(4096).fill(Number.NaN);
  length = 0;

  set(index: number, value: number): boolean {
    if (index < 0) return false;
    if (index >= this.data.length) {
      let size = this.data.length * 2;
      while (size <= index) size *= 2;
      const next = new Float64Array(size).fill(Number.NaN);
      next.set(this.data);
      this.data = next;
    }
    const fresh = Number.isNaN(this.data[index]!);
    this.data[index] = value;
    if (index >= this.length) this.length = index + 1;
    return fresh;
  }

  get(index: number): number {
    return index < this.data.length ? this.data[index]! : Number.NaN;
  }
}

/** The frames of one call by index: when the phone sent each, when the agent and the phone got it. */
export class CallTrack {
  readonly sentAt = new TimeArray();
  readonly agentAt = new TimeArray();
  readonly echoAt = new TimeArray();
  /** 1 where the frame arrived after a later one. */
  readonly agentLate = new TimeArray();
  readonly echoLate = new TimeArray();
  /** Arrival times of every frame played to the phone, in order. */
  readonly arrivals = new TimeArray();
  agentMax = -1;
  echoMax = -1;
  agentDuplicates = 0;

  sent(index: number, at: number): void {
    this.sentAt.set(index, at);
  }

  atAgent(index: number, at: number): void {
    if (!this.agentAt.set(index, at)) this.agentDuplicates++;
    if (index < this.agentMax) this.agentLate.set(index, 1);
    else this.agentMax = index;
  }

  echoed(index: number | null, at: number): void {
    this.arrivals.set(this.arrivals.length, at);
    if (index === null) return;
    this.echoAt.set(index, at);
    if (index < this.echoMax) this.echoLate.set(index, 1);
    else this.echoMax = index;
  }
}

/** A growing list of samples, for percentiles. */
export class Samples {
  private data = new Float64Array(65536);
  count = 0;

  push(v: number): void {
    if (this.count === this.data.length) {
      const next = new Float64Array(this.data.length * 2);
      next.set(this.data);
      this.data = next;
    }
    this.data[this.count++] = v;
  }

  percentiles(): Percentiles {
    if (this.count === 0) return { p50: Number.NaN, p99: Number.NaN, max: Number.NaN };
    const sorted = this.data.slice(0, this.count).sort();
    const at = (q: number) => sorted[Math.min(this.count - 1, Math.floor(q * this.count))]!;
    return { p50: at(0.5), p99: at(0.99), max: sorted[this.count - 1]! };
  }
}
