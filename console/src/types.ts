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
import { FINAL_CALL_STATES } from '../../src/calls/state.js';

/** The API's enumerations, from the one list each (src/calls/state.ts, src/codecs/formats.ts): the call states and event names for the filters. */
export { CALL_STATES, EVENT_NAMES } from '../../src/calls/state.js';
export { STREAM_FORMATS, type StreamFormat } from '../../src/codecs/formats.js';
export const FINAL_STATES: ReadonlySet<CallState> = new Set(FINAL_CALL_STATES);
