export {
  WebhookDispatcher,
  toWebhookDelivery,
  type BodyFields,
  type ScheduledRetry,
  type StoredWebhookJob,
  type WebhookBody,
  type WebhookDelivery,
  type WebhookDispatcherOptions,
  type WebhookJobInput,
} from './dispatcher.js';
export { ATTEMPT_OUTCOMES, type AttemptOutcome } from './sender.js';
export { ONE_GATEWAY, type AddClaimedJob, type JobOwnership } from './ownership.js';
export type { WebhookEventDelivery } from './event-log.js';
export { signedHeaders, signWebhook, webhookHeaders, WEBHOOK_USER_AGENT, type SignedHeaders, type SignInput, type WebhookHeaders } from './signing.js';
