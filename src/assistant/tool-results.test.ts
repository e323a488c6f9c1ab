import { describe, expect, it } from 'vitest';
import { cleanMessage } from './tool-results.js';
import { failureTone } from './tones.js';

describe('cleanMessage', () => {
  it('keeps what the model gave, trimmed', () => {
    expect(cleanMessage({ callerName: ' Max ', reason: 'Roof', callbackNumber: '+4917', urgency: 'high' })).toEqual({
      callerName: 'Max',
      reason: 'Roof',
      callbackNumber: '+4917',
      urgency: 'high',
    });
  });

  it('fills gaps: unknown caller, no callback number, normal urgency', () => {
    expect(cleanMessage({ urgency: 'asap', callbackNumber: '  ' })).toEqual({ callerName: 'unknown', reason: '', callbackNumber: undefined, urgency: 'normal' });
    expect(cleanMessage('not json')).toMatchObject({ callerName: 'unknown', urgency: 'normal' });
  });
});

describe('failureTone', () => {
  it('is about 0.93 s of 16 kHz PCM within full scale', () => {
    const pcm = failureTone();
    expect(pcm.length).toBe(Math.round(16 * 928) * 2);
    let peak = 0;
    for (let i = 0; i < pcm.length; i += 2) peak = Math.max(peak, Math.abs(pcm.readInt16LE(i)));
    expect(peak).toBeGreaterThan(7000);
    expect(peak).toBeLessThanOrEqual(8192);
  });
});
