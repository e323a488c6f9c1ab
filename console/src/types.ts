/** The API's resources as the console reads them: inferred from the gateway's own schemas. */

export type {
  ApiKey,
  AssistantCallInfo,
  AssistantConnectionTest,
  AssistantMessage,
  AssistantSettings,
  Call,
  CallEvent,
  CallState,
  Device,
  Diagnostics,
  Direction,
  Health,
  LinkStatus,
  LiveMessage,
  MediaInfo,
  Pairing,
  SecretInfo,
  Settings,
  StreamConfig,
  StreamInfo,
  TranscriptLine,
  User,
  WebhookDelivery,
  WebhookEventDelivery,
} from '../../src/http/api-types.js';
import type { CallState } from '../../src/http/api-types.js';

export const CALL_STATES: CallState[] = ['queued', 'dialing', 'ringing', 'active', 'held', 'ended', 'rejected', 'failed'];
/** The event names of the API (src/calls/state.ts), for the webhook log's filter. */
export { EVENT_NAMES } from '../../src/calls/state.js';
export const FINAL_STATES: ReadonlySet<CallState> = new Set(['ended', 'rejected', 'failed']);
