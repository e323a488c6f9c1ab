import { describe, expect, it } from 'vitest';
import type { TestGateway } from '../helpers/gateway.js';
import { show, testScope, type ErrorBody } from '../helpers/phones.js';

const t = testScope();

/** A wrong pairing code, from whoever `forwardedFor` says the client is. */
const guess = (g: TestGateway, i: number, forwardedFor: string) =>
  g.api<ErrorBody>('POST', '/v1/phone/pair', { code: `WRONG${i}`, name: 'Guesser' }, { key: null, headers: { 'X-Forwarded-For': forwardedFor } });

/** Guesses from `forwardedFor` until refused with 429; how many were answered 401 before. */
async function guessUntilLimited(g: TestGateway, forwardedFor: string | ((i: number) => string)): Promise<number> {
  for (let i = 0; i < 40; i++) {
    const res = await guess(g, i, typeof forwardedFor === 'string' ? forwardedFor : forwardedFor(i));
    if (res.status === 429) return i;
    expect(res.status, show(res)).toBe(401);
  }
  throw new Error('never rate limited');
}

describe('TRUST_PROXY: the client address behind a balancer', () => {
  it('without it, X-Forwarded-For is ignored: a guesser cannot spread its guesses over made-up addresses', async () => {
    const g = await t.gateway();
    const allowed = await guessUntilLimited(g, (i) => `203.0.113.${i + 1}`);
    expect(allowed).toBeGreaterThan(0);
    expect((await guess(g, 99, '198.51.100.1')).status).toBe(429);
  });

  it('behind a trusted proxy, each client is limited alone, by the address the proxy appended', async () => {
    const g = await t.gateway({ env: { TRUST_PROXY: '127.0.0.1,::1' } });
    await guessUntilLimited(g, '203.0.113.7');
    expect((await guess(g, 99, '203.0.113.7')).status).toBe(429);
    // What the guesser writes into the header itself stays left of what the proxy appended.
    expect((await guess(g, 99, '198.51.100.1, 203.0.113.7')).status).toBe(429);
    // Another client behind the same proxy is not held back by the guesser.
    const other = await guess(g, 99, '198.51.100.1');
    expect(other.status, show(other)).toBe(401);
  });
});
