import type { TranscriptLine } from '../calls/index.js';
import type { AssistantMessageRow } from '../store/index.js';
import type { Urgency } from './realtime/index.js';

/** Same set as the stream statuses (contract.md). */
export type AssistantStatus = 'off' | 'waiting' | 'connecting' | 'live' | 'ended' | 'error';

export interface AssistantMessage {
  callId: string;
  remoteNumber: string;
  callerName: string;
  reason: string;
  callbackNumber: string;
  urgency: Urgency;
  takenAt: string;
  /** When someone marked it read; null while unread. */
  readAt: string | null;
}

export interface AssistantCallInfo {
  requested: boolean;
  status: AssistantStatus;
  error?: string;
  transcript: TranscriptLine[];
  message?: AssistantMessage;
}

export const presentMessage = (row: AssistantMessageRow): AssistantMessage => ({
  callId: row.call_id,
  remoteNumber: row.remote_number,
  callerName: row.caller_name,
  reason: row.reason,
  callbackNumber: row.callback_number,
  urgency: row.urgency as Urgency,
  takenAt: row.taken_at,
  readAt: row.read_at,
});
