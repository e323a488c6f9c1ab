import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { signWebhook, webhookHeaders } from './signing.js';

const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

describe('signWebhook', () => {
  it('matches the Standard Webhooks reference library', () => {
    const body = '{"event":"call.active","eventId":"evt_1"}';
    const timestamp = 1_700_000_000;
    const ours = signWebhook({ secret, id: 'evt_1', timestamp, body });
    expect(ours).toBe(new Webhook(secret).sign('evt_1', new Date(timestamp * 1000), body));
    expect(ours).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
  });

  it('gives headers that the reference library verifies', () => {
    const body = JSON.stringify({ event: 'call.ringing', n: 'ü' });
    const headers = webhookHeaders({ secret, id: 'evt_2', timestamp: Math.floor(Date.now() / 1000), body });
    expect(headers['content-type']).toBe('application/json');
    expect(headers['user-agent']).toBe('voice-gateway/0.1.0');
    expect(new Webhook(secret).verify(body, headers)).toEqual({ event: 'call.ringing', n: 'ü' });
    expect(() => new Webhook(secret).verify(body + ' ', headers)).toThrow();
  });

  it('refuses an empty key and fractional timestamps', () => {
    expect(() => signWebhook({ secret: 'whsec_', id: 'x', timestamp: 1, body: '' })).toThrow(/empty/);
    expect(() => signWebhook({ secret, id: 'x', timestamp: 1.5, body: '' })).toThrow(/whole/);
  });
});
