import { createHmac, timingSafeEqual } from 'node:crypto';

/** Standard Webhooks (standardwebhooks.com): what the gateway signs each webhook with. */
export interface WebhookHeaders {
  'webhook-id'?: string | null;
  'webhook-timestamp'?: string | null;
  'webhook-signature'?: string | null;
}

export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
}

const TOLERANCE_S = 5 * 60;

const header = (h: WebhookHeaders | Headers, name: keyof WebhookHeaders): string | null =>
  h instanceof Headers ? h.get(name) : (h[name] ?? null);

/**
 * Checks a webhook's signature against the secret (`whsec_…`, from POST /v1/settings/webhook-secret)
 * and returns the parsed body. `body` must be the exact text received, before any JSON parsing.
 * Timestamps more than 5 minutes away are refused, so a captured request cannot be replayed later.
 */
export function verifyWebhook<T = unknown>(secret: string, body: string, headers: WebhookHeaders | Headers, now: Date = new Date()): T {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (!id || !timestamp || !signatures) throw new WebhookVerificationError('missing webhook-id, webhook-timestamp or webhook-signature');
  const seconds = Number(timestamp);
  if (!Number.isInteger(seconds) || Math.abs(now.getTime() / 1000 - seconds) > TOLERANCE_S) throw new WebhookVerificationError('timestamp too old or too new');
  const key = Buffer.from(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret, 'base64');
  const expected = createHmac('sha256', key).update(`${id}.${seconds}.${body}`).digest();
  // The header may carry several space-separated signatures (during a key rotation); one must match.
  const match = signatures.split(' ').some((s) => {
    const [version, mac] = s.split(',');
    if (version !== 'v1' || !mac) return false;
    const given = Buffer.from(mac, 'base64');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
  if (!match) throw new WebhookVerificationError('no signature matches');
  return JSON.parse(body) as T;
}
