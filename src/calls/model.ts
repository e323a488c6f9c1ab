import type { PCM_FORMAT } from '../audio/constants.js';
import type { StreamFormat } from '../codecs/formats.js';
import type { CallRow } from '../store/index.js';
import type { EndCause } from './end-cause.js';
import type { CallState, Direction, EventName } from './state.js';

export interface StreamConfig {
  url: string;
  format?: StreamFormat | undefined;
  parameters?: Record<string, string> | undefined;
}

export interface Call {
  id: string;
  deviceId: string;
  /** The name the phone had, once it has been removed. */
  deviceName?: string;
  remoteNumber: string;
  direction: Direction;
  state: CallState;
  nativeCallId?: string;
  webhookUrl?: string;
  metadata?: Record<string, unknown>;
  stream?: StreamConfig;
  createdAt: string;
  updatedAt: string;
  answeredAt?: string;
  endedAt?: string;
  endCause?: EndCause;
  endReason?: string;
}

export interface MediaInfo {
  path: string;
  format: typeof PCM_FORMAT;
  streaming: boolean;
}

/**
 * Extension: entries of a call's timeline that the gateway records itself, for commands sent
 * through the API (the phone reports no event for them). Named `gateway.*`, never `call.*`, so that
 * nobody takes one for a phone event; they move no state and send no webhook.
 */
export const GATEWAY_EVENT_NAMES = ['gateway.dtmf_sent', 'gateway.assistant_failed'] as const;
export type GatewayEventName = (typeof GATEWAY_EVENT_NAMES)[number];

export interface CallEvent {
  event: EventName | GatewayEventName;
  eventId: string;
  payload: Record<string, unknown>;
  occurredAt: string;
  receivedAt: string;
}

/** Who said a transcript line. */
export const TRANSCRIPT_ROLES = ['caller', 'agent'] as const;
export type TranscriptRole = (typeof TRANSCRIPT_ROLES)[number];

export interface TranscriptLine {
  role: TranscriptRole;
  text: string;
  at: string;
}

/** Absent optional fields are left out rather than sent as null, as the spec marks them "not required". */
export function presentCall(row: CallRow): Call {
  return {
    id: row.id,
    deviceId: row.device_id,
    ...(row.device_name ? { deviceName: row.device_name } : {}),
    remoteNumber: row.remote_number,
    direction: row.direction as Direction,
    state: row.state as CallState,
    ...(row.native_call_id ? { nativeCallId: row.native_call_id } : {}),
    ...(row.webhook_url ? { webhookUrl: row.webhook_url } : {}),
    ...(row.metadata ? { metadata: JSON.parse(row.metadata) as Record<string, unknown> } : {}),
    ...(row.stream ? { stream: JSON.parse(row.stream) as StreamConfig } : {}),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    ...(row.answered_at ? { answeredAt: row.answered_at } : {}),
    ...(row.ended_at ? { endedAt: row.ended_at } : {}),
    ...(row.end_cause ? { endCause: row.end_cause as EndCause } : {}),
    ...(row.end_reason ? { endReason: row.end_reason } : {}),
  };
}

export const mediaPath = (callId: string): string => `/v1/calls/${encodeURIComponent(callId)}/media`;
