import { FRAME_MS } from '../audio/constants.js';

/**
 * Calls `onFrame` once per period without drift: frame n is due at start + n * period
 * (performance.now()), and each timeout only covers the remainder. After a stall of the event loop
 * the missed frames are sent at once, up to `maxCatchUp`; older ones are skipped, as a phone's
 * capture buffer would overflow.
 */
export class FrameClock {
  private timer: NodeJS.Timeout | null = null;
  private t0 = 0;
  private n = 0;
  private running = false;

  constructor(
    private readonly onFrame: () => void,
    private readonly periodMs = FRAME_MS,
    private readonly maxCatchUp = 50,
  ) {}

  get isRunning(): boolean {
    return this.running;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.t0 = performance.now();
    this.n = 0;
    this.schedule();
  }

  stop(): void {
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private schedule(): void {
    const deadline = this.t0 + (this.n + 1) * this.periodMs;
    this.timer = setTimeout(() => this.tick(), Math.max(0, deadline - performance.now()));
  }

  private tick(): void {
    this.timer = null;
    let due = Math.floor((performance.now() - this.t0) / this.periodMs) - this.n;
    if (due > this.maxCatchUp) {
      this.n += due - this.maxCatchUp;
      due = this.maxCatchUp;
    }
    for (let i = 0; i < due && this.running; i++) {
      this.n++;
      this.onFrame();
    }
    if (this.running) this.schedule();
  }
}
