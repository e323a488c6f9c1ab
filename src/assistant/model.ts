import type { TranscriptLine } from '../calls/index.js';
import type { AssistantMessageRow, AssistantTaskRow } from '../store/index.js';
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

/** The task a call's assistant was given (POST /v1/calls or POST /v1/calls/{id}/agent with `assistant`). */
export interface AssistantTask {
  instructions: string;
  voice?: string;
  hangUpWhenDone: boolean;
}

/**
 * How the task went. `reported: false` is the clear "no outcome": the call ended and the model never
 * called report_outcome (it is absent while the call goes on without one).
 */
export interface TaskOutcome {
  reported: boolean;
  achieved: boolean;
  summary: string;
  facts: string[];
  reportedAt: string | null;
}

export const NO_OUTCOME_SUMMARY = 'No outcome: the call ended before the assistant reported one.';

export interface AssistantCallInfo {
  requested: boolean;
  status: AssistantStatus;
  error?: string;
  transcript: TranscriptLine[];
  message?: AssistantMessage;
  task?: AssistantTask;
  outcome?: TaskOutcome;
}

export function presentTask(row: AssistantTaskRow, callEnded: boolean): { task: AssistantTask; outcome?: TaskOutcome } {
  const task: AssistantTask = { instructions: row.instructions, ...(row.voice ? { voice: row.voice } : {}), hangUpWhenDone: row.hang_up_when_done === 1 };
  if (row.outcome) {
    const o = JSON.parse(row.outcome) as Pick<TaskOutcome, 'achieved' | 'summary' | 'facts'>;
    return { task, outcome: { reported: true, achieved: o.achieved, summary: o.summary, facts: o.facts, reportedAt: row.reported_at } };
  }
  if (!callEnded) return { task };
  return { task, outcome: { reported: false, achieved: false, summary: NO_OUTCOME_SUMMARY, facts: [], reportedAt: null } };
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
