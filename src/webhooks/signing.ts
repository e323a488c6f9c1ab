import { createHmac } from 'node:crypto';

const SECRET_PREFIX = 'whsec_';
export const WEBHOOK_USER_AGENT = 'voice-gateway/0.1.0';

export interface SignInput {
  /** `whsec_<base64>`; the key is the base64-decoded part. */
  secret: string;
  /** The `webhook-id`: a webhook's eventId (the same on every attempt), an upgrade's own id. */
  id: string;
  /** Unix seconds of the attempt. */
  timestamp: number;
  /** The exact bytes that are sent (of an upgrade: the URL dialled). */
  body: string;
}

/** What a webhook and the WebSocket upgrade to an agent (docs/api.md) both carry. */
export type SignedHeaders = {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
  'user-agent': string;
};

export type WebhookHeaders = SignedHeaders & { 'content-type': 'application/json' };

/** Standard Webhooks: `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`. */
export function signWebhook({ secret, id, timestamp, body }: SignInput): string {
  const key = Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64');
  if (key.length === 0) throw new Error('webhook secret is empty');
  if (!Number.isSafeInteger(timestamp)) throw new Error('webhook timestamp must be whole Unix seconds');
  const mac = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64');
  return `v1,${mac}`;
}

export function signedHeaders(input: SignInput): SignedHeaders {
  return {
    'webhook-id': input.id,
    'webhook-timestamp': String(input.timestamp),
    'webhook-signature': signWebhook(input),
    'user-agent': WEBHOOK_USER_AGENT,
  };
}

export function webhookHeaders(input: SignInput): WebhookHeaders {
  return { ...signedHeaders(input), 'content-type': 'application/json' };
}
