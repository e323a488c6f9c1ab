/**
 * Audio worklet processors of the live audio panel, bundled as one module (`?worker&url`):
 * `vg-playback` plays the call's 16 kHz PCM at the context's rate through a small jitter buffer;
 * `vg-capture` turns the microphone into 20 ms frames of 16 kHz PCM for the media socket.
 */
import { CALL_RATE, FrameAssembler, floatToInt16, int16ToFloat, LinearResampler, rms } from './pcm';

declare const sampleRate: number;
declare class AudioWorkletProcessor {
  readonly port: MessagePort;
  constructor(options?: unknown);
}
declare function registerProcessor(name: string, ctor: new (options?: unknown) => AudioWorkletProcessor): void;

/** Levels go to the page about 20 times a second. */
const LEVEL_EVERY_S = 0.05;

class Playback extends AudioWorkletProcessor {
  private readonly resampler = new LinearResampler(CALL_RATE, sampleRate);
  private readonly ring = new Float32Array(Math.ceil(sampleRate * 2));
  private read = 0;
  private size = 0;
  private playing = false;
  /** Start (and restart after running dry) with this much audio queued: absorbs network jitter. */
  private readonly startAt = Math.round(sampleRate * 0.08);
  private levelSum = 0;
  private levelCount = 0;

  constructor() {
    super();
    this.port.onmessage = (e: MessageEvent<ArrayBuffer | { type: 'clear' }>) => {
      if (e.data instanceof ArrayBuffer) this.enqueue(this.resampler.process(int16ToFloat(new Int16Array(e.data))));
      else if (e.data.type === 'clear') this.size = 0;
    };
  }

  private enqueue(samples: Float32Array): void {
    const cap = this.ring.length;
    for (let i = 0; i < samples.length; i++) {
      if (this.size === cap) {
        // Over two seconds behind: drop the oldest sample rather than grow the delay.
        this.read = (this.read + 1) % cap;
        this.size--;
      }
      this.ring[(this.read + this.size) % cap] = samples[i]!;
      this.size++;
    }
  }

  process(_inputs: Float32Array[][], outputs: Float32Array[][]): boolean {
    const out = outputs[0];
    const first = out?.[0];
    if (!out || !first) return true;
    if (!this.playing && this.size >= this.startAt) this.playing = true;
    const cap = this.ring.length;
    for (let i = 0; i < first.length; i++) {
      let s = 0;
      if (this.playing && this.size > 0) {
        s = this.ring[this.read]!;
        this.read = (this.read + 1) % cap;
        this.size--;
      }
      first[i] = s;
      this.levelSum += s * s;
    }
    if (this.size === 0) this.playing = false;
    for (let c = 1; c < out.length; c++) out[c]!.set(first);
    this.levelCount += first.length;
    if (this.levelCount >= sampleRate * LEVEL_EVERY_S) {
      this.port.postMessage({ type: 'level', level: Math.sqrt(this.levelSum / this.levelCount), buffered: this.size / sampleRate });
      this.levelSum = 0;
      this.levelCount = 0;
    }
    return true;
  }
}

class Capture extends AudioWorkletProcessor {
  private readonly resampler = new LinearResampler(sampleRate, CALL_RATE);
  private readonly frames = new FrameAssembler();
  private muted = false;
  private levelMax = 0;
  private levelCount = 0;

  constructor() {
    super();
    this.port.onmessage = (e: MessageEvent<{ type: 'mute'; muted: boolean }>) => {
      if (e.data.type === 'mute') this.muted = e.data.muted;
    };
  }

  process(inputs: Float32Array[][]): boolean {
    const input = inputs[0]?.[0];
    if (!input) return true;
    this.levelMax = Math.max(this.levelMax, rms(input));
    this.levelCount += input.length;
    if (this.levelCount >= sampleRate * LEVEL_EVERY_S) {
      this.port.postMessage({ type: 'level', level: this.muted ? 0 : this.levelMax });
      this.levelMax = 0;
      this.levelCount = 0;
    }
    if (this.muted) return true;
    for (const frame of this.frames.push(floatToInt16(this.resampler.process(input)))) {
      this.port.postMessage(frame.buffer, [frame.buffer]);
    }
    return true;
  }
}

registerProcessor('vg-playback', Playback);
registerProcessor('vg-capture', Capture);
