import { SAMPLE_RATE } from '../audio/index.js';

/**
 * The three rising "special information tones" (about 0.9 s) a phone network plays before a
 * recorded "cannot be completed" notice: what the caller hears when the assistant fails mid-call,
 * right before the gateway hangs up, instead of dead air.
 */
export function failureTone(amplitude = 0.25): Buffer {
  const segments: Array<[hz: number, ms: number]> = [
    [913.8, 274],
    [1370.6, 274],
    [1776.7, 380],
  ];
  const total = segments.reduce((n, [, ms]) => n + (SAMPLE_RATE * ms) / 1000, 0);
  const out = Buffer.alloc(Math.round(total) * 2);
  const peak = amplitude * 32767;
  let i = 0;
  for (const [hz, ms] of segments) {
    const n = Math.round((SAMPLE_RATE * ms) / 1000);
    const fade = Math.min(80, n / 4);
    for (let k = 0; k < n; k++, i++) {
      const envelope = Math.min(1, k / fade, (n - 1 - k) / fade);
      out.writeInt16LE(Math.round(peak * envelope * Math.sin((2 * Math.PI * hz * k) / SAMPLE_RATE)), i * 2);
    }
  }
  return out;
}
