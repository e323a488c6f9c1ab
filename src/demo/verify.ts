import type { IncomingHttpHeaders } from 'node:http';
import { signWebhook } from '../webhooks/index.js';

/** Checks a Standard Webhooks signature the way a receiver would. */
export class Webhook {
  constructor(private readonly secret: string) {}

  verify(body: string, headers: IncomingHttpHeaders): boolean {
    const id = headers['webhook-id'];
    const timestamp = Number(headers['webhook-timestamp']);
    const signatures = String(headers['webhook-signature'] ?? '').split(' ');
    if (typeof id !== 'string' || !Number.isInteger(timestamp)) return false;
    const expected = signWebhook({ secret: this.secret, id, timestamp, body });
    return signatures.includes(expected);
  }
}
