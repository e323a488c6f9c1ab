import { describe, expect, it } from 'vitest';
import type { GatewayError } from '../errors.js';
import { FailureWindow } from './rate-limit.js';

const refusal = (fn: () => void): GatewayError | undefined => {
  try {
    fn();
    return undefined;
  } catch (err) {
    return err as GatewayError;
  }
};

describe('FailureWindow', () => {
  it('refuses a key past its failures in the window with 429 and Retry-After, until the window moves on', () => {
    const limiter = new FailureWindow(3, 60_000, 'sign-in');
    for (const at of [0, 1_000, 2_000]) limiter.fail('a', at);
    expect(refusal(() => limiter.check('a', 30_000))).toMatchObject({ code: 'RATE_LIMITED', status: 429, retryAfter: 30 });
    expect(refusal(() => limiter.check('b', 30_000))).toBeUndefined();
    expect(refusal(() => limiter.check('a', 60_000))).toBeUndefined();
  });

  it('takes back an attempt that succeeded', () => {
    const limiter = new FailureWindow(1, 60_000, 'pairing');
    limiter.attempt('a', 0)();
    expect(refusal(() => limiter.check('a', 1))).toBeUndefined();
    limiter.attempt('a', 2);
    expect(refusal(() => limiter.check('a', 3))).toMatchObject({ code: 'RATE_LIMITED' });
  });

  it('forgets a key once all its failures have left the window, however few keys it holds', () => {
    const limiter = new FailureWindow(5, 1_000, 'sign-in');
    limiter.fail('a', 0);
    limiter.fail('b', 400);
    limiter.fail('b', 900);
    expect(limiter.keys).toBe(2);
    limiter.fail('c', 1_000);
    expect(limiter.keys).toBe(2);
    limiter.fail('c', 1_900);
    expect(limiter.keys).toBe(1);
  });

  it('keeps only the keys of the window however many clients failed before', () => {
    const limiter = new FailureWindow(5, 1_000, 'sign-in');
    for (let i = 0; i < 50_000; i++) limiter.fail(`client-${i}`, i / 100);
    expect(limiter.keys).toBe(50_000);
    limiter.fail('late', 2_000);
    expect(limiter.keys).toBe(1);
    expect(refusal(() => limiter.check('client-1', 2_000))).toBeUndefined();
  });
});
