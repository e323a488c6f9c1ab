/**
 * The ring of an incoming call, made with Web Audio (no sound file): 400 and 450 Hz together in the
 * cadence of a British phone (0.4 s on, 0.2 s off, 0.4 s on, 2 s off).
 *
 * Browsers let a page make sound only after the person has interacted with it, so the audio
 * context is created (or resumed) at the first click or key press anywhere in the console; a call
 * that rings before any interaction rings silently (the toast says so).
 */
const CYCLE_S = 3;
const BURSTS: Array<[start: number, length: number]> = [
  [0, 0.4],
  [0.6, 0.4],
];
const VOLUME = 0.12;

class Ringer {
  private ctx: AudioContext | null = null;
  private ringing: { gain: GainNode; oscillators: OscillatorNode[]; timer: number } | null = null;

  constructor() {
    const unlock = (): void => {
      void this.context()?.resume().catch(() => undefined);
    };
    window.addEventListener('pointerdown', unlock, { capture: true });
    window.addEventListener('keydown', unlock, { capture: true });
  }

  private context(): AudioContext | null {
    if (typeof AudioContext === 'undefined') return null;
    this.ctx ??= new AudioContext();
    return this.ctx;
  }

  /** Whether the browser lets the console play the ring now. */
  get audible(): boolean {
    return this.ctx?.state === 'running';
  }

  get active(): boolean {
    return this.ringing !== null;
  }

  start(): void {
    const ctx = this.context();
    if (!ctx || this.ringing) return;
    void ctx.resume().catch(() => undefined);
    const gain = ctx.createGain();
    gain.gain.value = 0;
    gain.connect(ctx.destination);
    const oscillators = [400, 450].map((hz) => {
      const osc = ctx.createOscillator();
      osc.frequency.value = hz;
      osc.connect(gain);
      osc.start();
      return osc;
    });
    const schedule = (): void => {
      const t0 = ctx.currentTime + 0.05;
      for (const [start, length] of BURSTS) {
        gain.gain.setValueAtTime(VOLUME, t0 + start);
        gain.gain.setValueAtTime(0, t0 + start + length);
      }
    };
    schedule();
    this.ringing = { gain, oscillators, timer: window.setInterval(schedule, CYCLE_S * 1000) };
  }

  stop(): void {
    const ringing = this.ringing;
    if (!ringing) return;
    this.ringing = null;
    window.clearInterval(ringing.timer);
    for (const osc of ringing.oscillators) {
      osc.stop();
      osc.disconnect();
    }
    ringing.gain.disconnect();
  }
}

export const ringer = new Ringer();
