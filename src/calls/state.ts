/** The call state machine of phone-protocol.md section 5, and which client actions fit which state. */

export const CALL_STATES = ['queued', 'dialing', 'ringing', 'active', 'held', 'ended', 'rejected', 'failed'] as const;
export type CallState = (typeof CALL_STATES)[number];

export const FINAL_CALL_STATES = ['ended', 'rejected', 'failed'] as const satisfies readonly CallState[];

export const EVENT_NAMES = [
  'call.new',
  'call.connecting',
  'call.select_phone_account',
  'call.dialing',
  'call.ringing',
  'call.simulated_ringing',
  'call.active',
  'call.audio_processing',
  'call.holding',
  'call.pulling',
  'call.disconnecting',
  'call.disconnected',
  'call.rejected',
  'call.failed',
] as const;
export type EventName = (typeof EVENT_NAMES)[number];

export const CALL_ACTIONS = ['answer', 'reject', 'hangup', 'hold', 'unhold'] as const;
export type CallAction = (typeof CALL_ACTIONS)[number];
/** What a command asks of the phone: a dial, a call action or digits. */
export const COMMAND_ACTIONS = ['dial', ...CALL_ACTIONS, 'dtmf'] as const;
export type CommandAction = (typeof COMMAND_ACTIONS)[number];

export const DIRECTIONS = ['outgoing', 'incoming'] as const;
export type Direction = (typeof DIRECTIONS)[number];

const STATE_AFTER: Partial<Record<EventName, CallState>> = {
  'call.dialing': 'dialing',
  'call.ringing': 'ringing',
  'call.simulated_ringing': 'ringing',
  'call.active': 'active',
  'call.audio_processing': 'active',
  'call.holding': 'held',
  'call.disconnected': 'ended',
  'call.rejected': 'rejected',
  'call.failed': 'failed',
};

export const isFinal = (state: string): boolean => (FINAL_CALL_STATES as readonly string[]).includes(state);

export interface CallTimes {
  state: CallState;
  answeredAt: string | null;
  endedAt: string | null;
}

/** The call after a phone event; a final call is never moved again. */
export function applyEvent(call: CallTimes, event: EventName, at: string): CallTimes {
  if (isFinal(call.state)) return call;
  const state = STATE_AFTER[event] ?? call.state;
  return {
    state,
    answeredAt: call.answeredAt ?? (state === 'active' ? at : null),
    endedAt: isFinal(state) ? at : null,
  };
}

/** Why an action does not fit, or null when it does. */
export function actionRefusal(action: CallAction | 'dtmf', call: { state: string; direction: string }): string | null {
  switch (action) {
    case 'answer':
    case 'reject':
      return call.direction === 'incoming' && call.state === 'ringing' ? null : `${action} applies only to a ringing incoming call`;
    case 'hangup':
      return isFinal(call.state) ? 'the call has already ended' : null;
    case 'hold':
      return call.state === 'active' ? null : 'hold applies only to an active call';
    case 'unhold':
      return call.state === 'held' ? null : 'unhold applies only to a held call';
    case 'dtmf':
      return call.state === 'active' || call.state === 'held' ? null : 'dtmf applies only to an active or held call';
  }
}
