import { STREAM_FORMATS, type Call, type CallState, type Device, type StreamFormat } from './types';

const timeFormat = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit' });
const dateTimeFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
const shortDateTime = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' });
const relative = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });

export const fullTime = (iso: string): string => dateTimeFormat.format(new Date(iso));
export const clockTime = (iso: string): string => timeFormat.format(new Date(iso));

/** "just now", "5 min ago", "yesterday", else a short date. */
export function ago(iso: string | null | undefined, now = Date.now()): string {
  if (!iso) return 'never';
  const seconds = Math.round((Date.parse(iso) - now) / 1000);
  const abs = Math.abs(seconds);
  if (abs < 10) return 'just now';
  if (abs < 60) return relative.format(seconds, 'second');
  if (abs < 3600) return relative.format(Math.round(seconds / 60), 'minute');
  if (abs < 86_400) return relative.format(Math.round(seconds / 3600), 'hour');
  if (abs < 7 * 86_400) return relative.format(Math.round(seconds / 86_400), 'day');
  return shortDateTime.format(new Date(iso));
}

/** m:ss or h:mm:ss. */
export function duration(ms: number): string {
  const total = Math.max(0, Math.floor(ms / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${String(s).padStart(2, '0')}` : `${m}:${String(s).padStart(2, '0')}`;
}

/** The stream formats as the console names them, in the API's order. */
const STREAM_FORMAT_LABELS: Record<StreamFormat, string> = { raw: 'Raw PCM (16 kHz)', vendor: 'Twilio-style media stream (8 kHz μ-law)' };
export const STREAM_FORMAT_OPTIONS: Array<[StreamFormat, string]> = STREAM_FORMATS.map((format) => [format, STREAM_FORMAT_LABELS[format]]);

export const STATE_LABELS: Record<CallState, string> = {
  queued: 'Queued',
  dialing: 'Dialing',
  ringing: 'Ringing',
  active: 'Active',
  held: 'On hold',
  ended: 'Ended',
  rejected: 'Rejected',
  failed: 'Failed',
};

/** Timeline events named as the state they lead to is named elsewhere in the console (one word per thing). */
const EVENT_LABELS: Record<string, string> = {
  'call.holding': STATE_LABELS.held,
  'call.active': STATE_LABELS.active,
  'call.dialing': STATE_LABELS.dialing,
  'call.ringing': STATE_LABELS.ringing,
  'call.disconnected': STATE_LABELS.ended,
  'call.rejected': STATE_LABELS.rejected,
  'call.failed': STATE_LABELS.failed,
  // The gateway's own record of a command, not something the phone reported (GATEWAY_EVENT_NAMES).
  'gateway.dtmf_sent': 'Tones sent through the API',
  'gateway.assistant_failed': 'The assistant could not join',
};

/** An event on a call's timeline: named as its state is named elsewhere (the webhook log keeps the API's names, eventLabel). */
export const timelineLabel = (event: string): string => EVENT_LABELS[event] ?? eventLabel(event);

/** `call.select_phone_account` -> "Select phone account". */
export function eventLabel(event: string): string {
  const words = event.replace(/^call\./, '').replace(/_/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** The phone's current name, else the name a removed phone had (kept on its calls), else its id. */
export const deviceName = (devices: Device[], id: string, call?: { deviceName?: string | undefined }): string =>
  devices.find((d) => d.id === id)?.name ?? (call?.deviceName ? `${call.deviceName} (removed)` : id);

export const NETWORK_LABELS: Record<string, string> = { wifi: 'Wi-Fi', cellular: 'Cellular', ethernet: 'Ethernet', other: 'Other', none: 'No network' };
export const AUDIO_LABELS: Record<string, string> = { running: 'Running', stopped: 'Stopped', pairing_required: 'Needs pairing' };

/**
 * Why a call ended, in words (the API's endCause; see src/calls/end-cause.ts). "Hung up here" is this
 * line: the console, the API or the phone's own screen; "the caller"/"the callee" is the other party.
 */
export function endLabel(call: Pick<Call, 'direction' | 'state' | 'endCause' | 'endReason' | 'answeredAt'>): string | null {
  const other = call.direction === 'incoming' ? 'the caller' : 'the callee';
  switch (call.endCause) {
    case undefined:
      return call.state === 'rejected' ? 'Rejected' : call.state === 'failed' ? 'Failed' : null;
    case 'local':
      return call.answeredAt ? 'Hung up here' : call.direction === 'outgoing' ? 'Cancelled before an answer' : 'Declined here';
    case 'remote':
      return call.answeredAt ? `Hung up by ${other}` : call.direction === 'incoming' ? 'The caller gave up' : 'Declined by the callee';
    case 'busy':
      return 'Busy';
    case 'rejected':
      return call.direction === 'incoming' ? 'Rejected here' : 'Rejected by the callee';
    case 'missed':
      return 'No answer';
    case 'failed':
      return call.endReason ? `Failed: ${call.endReason}` : 'Failed';
    case 'error':
      return call.endReason ? `Error: ${call.endReason}` : 'Error on the phone';
    case 'other':
      return call.endReason ? `Ended: ${call.endReason}` : 'Ended';
  }
}
