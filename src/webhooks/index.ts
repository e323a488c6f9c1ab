export {
  WebhookDispatcher,
  toWebhookDelivery,
  type ScheduledRetry,
  type StoredWebhookJob,
  type WebhookBody,
  type WebhookDelivery,
  type WebhookDispatcherOptions,
  type WebhookJobInput,
} from './dispatcher.js';
export { ATTEMPT_OUTCOMES, type AttemptOutcome } from './sender.js';
export type { WebhookClaims } from './claims.js';
export type { WebhookEventDelivery } from './event-log.js';
export { signedHeaders, signWebhook, webhookHeaders, WEBHOOK_USER_AGENT, type SignedHeaders, type SignInput, type WebhookHeaders } from './signing.js';
