import { URGENCIES, type Urgency } from './realtime/index.js';

/*
 * What the model hands to the assistant's tools (record_message, report_outcome), cleaned up: its
 * arguments are the model's JSON and are trusted for nothing, so each field is typed, trimmed and
 * bounded here before the bridge passes it on to be stored.
 */

/** What the model handed to record_message, cleaned up. */
export interface RecordedMessage {
  callerName: string;
  reason: string;
  callbackNumber: string | undefined;
  urgency: Urgency;
}

/** What the model handed to report_outcome, cleaned up. */
export interface ReportedOutcome {
  achieved: boolean;
  summary: string;
  facts: string[];
}

const text = (v: unknown, max: number): string => (typeof v === 'string' ? v.trim().slice(0, max) : '');

export function cleanMessage(args: unknown): RecordedMessage {
  const a = typeof args === 'object' && args !== null ? (args as Record<string, unknown>) : {};
  const urgency = URGENCIES.find((u) => u === a.urgency) ?? 'normal';
  const callback = text(a.callbackNumber, 64);
  return {
    callerName: text(a.callerName, 200) || 'unknown',
    reason: text(a.reason, 2000),
    callbackNumber: callback || undefined,
    urgency,
  };
}

const MAX_FACTS = 50;

export function cleanOutcome(args: unknown): ReportedOutcome {
  const a = typeof args === 'object' && args !== null ? (args as Record<string, unknown>) : {};
  const facts = Array.isArray(a.facts) ? a.facts.map((f) => text(f, 500)).filter(Boolean).slice(0, MAX_FACTS) : [];
  return { achieved: a.achieved === true, summary: text(a.summary, 2000), facts };
}
