import type { AssistantMessage } from '../assistant/model.js';
import type { Call, CallEvent, CallState } from '../calls/index.js';
import type { Device } from '../phones/index.js';
import type { WebhookDelivery } from '../webhooks/index.js';

/**
 * What the live channel pushes to the console (docs/console.md). Each message stands on its own:
 * it carries the whole resource as the REST interface shows it, so a client never has to merge.
 */
export type LiveMessage =
  | { type: 'hello'; serverTime: string }
  | { type: 'call'; call: Call; previousState: CallState | null; event?: CallEvent }
  | { type: 'device'; deviceId: string; device: Device | null }
  | { type: 'delivery'; delivery: WebhookDelivery }
  /** The assistant took a message. */
  | { type: 'message'; message: AssistantMessage };

export type LiveMessageType = LiveMessage['type'];
