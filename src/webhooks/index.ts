export {
  WebhookDispatcher,
  toWebhookDelivery,
  type StoredWebhookJob,
  type WebhookBody,
  type WebhookDelivery,
  type WebhookDispatcherOptions,
  type WebhookJobInput,
  type WebhookClaims,
} from './dispatcher.js';
export { ATTEMPT_OUTCOMES, type AttemptOutcome } from './sender.js';
export { signWebhook, webhookHeaders, WEBHOOK_USER_AGENT, type SignInput, type WebhookHeaders } from './signing.js';
