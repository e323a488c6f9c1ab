export { WebhookDispatcher, type BodyFields, type WebhookDispatcherOptions } from './dispatcher.js';
export { toWebhookDelivery, type StoredWebhookJob, type WebhookBody, type WebhookDelivery, type WebhookJobInput } from './delivery.js';
export type { ScheduledRetry } from './redelivery.js';
export { ATTEMPT_OUTCOMES, type AttemptOutcome } from './sender.js';
export { ONE_GATEWAY, type AddClaimedJob, type JobOwnership } from './ownership.js';
export type { WebhookEventDelivery } from './event-log.js';
export { signedHeaders, signWebhook, webhookHeaders, WEBHOOK_USER_AGENT, type SignedHeaders, type SignInput, type WebhookHeaders } from './signing.js';
